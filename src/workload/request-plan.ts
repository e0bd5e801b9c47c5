/**
 * What to send, under one name from the workload to the socket: the RequestPlan of one request, as the
 * workload built it. The client sends its body and headers (client/types.ts); the runner keeps its
 * expected input tokens for estimates. (Inside the client, the plan encoded for the wire is an
 * EncodedRequest: bytes, not a plan.)
 */
export interface RequestPlan {
  /**
   * The request's body: with `api: chat` the chat request (model, messages, the scenario's request and
   * request_extra fields, service_tier, max_completion_tokens); with another API, its body made from that.
   */
  readonly body: Record<string, unknown>;
  /**
   * With another API than chat: the chat body `body` was made from. Answer checks read the `tools` and
   * `response_format` the profile declared from it, in chat's shape (each API's body has its own:
   * Anthropic's `input_schema`...). Absent with chat: `body` is the chat body.
   */
  readonly chatBody?: Readonly<Record<string, unknown>>;
  /** Headers of this request only (besides the target's); none today from the workload. */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * Tokens of the prompt text (system + shared prefix + user), as the workload's tokenizer counts them:
   * message contents only; a server's usage adds a few tokens per message for its chat template.
   */
  readonly expectedInputTokens: number;
  /**
   * Labels of this request (e.g. `prefix: "p3"`, `turn: "2"`), copied into its RequestRecord and counted per
   * (label, value) in the group's breakdowns; absent when the workload sets none.
   */
  readonly labels?: Readonly<Record<string, string>>;
  /**
   * Prompts in this request's body (api: embeddings: the length of its `input`, inputs_per_request);
   * absent for an API that generates an answer to one prompt.
   */
  readonly inputs?: number;
}
