/**
 * llama.cpp in-process (node-llama-cpp, CPU only) as a small continuous-batching engine: one model, one
 * context with N sequences, a bounded queue of requests waiting for a free sequence. Sequences that
 * generate at the same time are evaluated in the same llama.cpp batches (node-llama-cpp gathers the
 * pending tokens of every sequence of a context into one decode), so a new request's prefill and the
 * others' decode steps share the CPU as in a real server.
 *
 * Every time it reports is the engine's: the moment a sequence was given, and performance.now() each time
 * the evaluate iterator yielded a token. Nothing here sleeps. engine-server.ts puts HTTP in front of it.
 */
import {
  getLlama,
  JinjaTemplateChatWrapper,
  type ChatHistoryItem,
  type Llama,
  type LlamaContext,
  type LlamaContextSequence,
  type LlamaModel,
  LlamaLogLevel,
  type Token,
  TokenBias,
} from 'node-llama-cpp';

export interface LlamaEngineOptions {
  readonly modelPath: string;
  /** Sequences evaluated side by side (llama.cpp server's slots); default 2. */
  readonly sequences?: number;
  /** Tokens of context per sequence (prompt and answer); default 4096. */
  readonly contextSize?: number;
  /** Requests allowed to wait for a sequence; beyond it a request is refused (overloaded); default 32. */
  readonly maxQueue?: number;
  /**
   * CPU threads of llama.cpp; default 1. Its threads spin while they wait: more threads than free cores
   * made a token take 1.4 s instead of 2 ms on a loaded 2-core machine.
   */
  readonly threads?: number;
  /** Tokens per llama.cpp decode call; default 512. */
  readonly batchSize?: number;
}

export interface ChatMessage {
  readonly role: string;
  readonly content: string;
}

export interface GenerateParams {
  readonly maxTokens: number;
  readonly stop: readonly string[];
  /** 0: greedy. */
  readonly temperature: number;
  readonly seed: number;
  /** OpenAI logit_bias: token id -> added to its logit. */
  readonly logitBias: Readonly<Record<string, number>> | null;
}

/** One request as the engine saw it (times are performance.now() ms of this process). */
export interface EngineRequestLog {
  /** The x-request-id the client sent, or null. */
  readonly requestId: string | null;
  /** The messages of a chat request ([] for a completions request). */
  readonly messages: readonly ChatMessage[];
  /** The text prompt of a /v1/completions request (null for a chat request). */
  readonly prompt: string | null;
  readonly arrivedMs: number;
  /** When it was given a sequence (NaN if it never was). */
  startedMs: number;
  /**
   * performance.now() each time the evaluation yielded a token, in order: the first is the end of the
   * prefill; an end-of-generation token, which is not sent nor counted, has its time here too.
   */
  readonly tokenTimesMs: number[];
  endedMs: number;
  promptTokens: number;
  completionTokens: number;
  finishReason: 'stop' | 'length' | null;
  text: string;
}

/** Thrown when every sequence is busy and the wait queue is full. */
export class EngineOverloadedError extends Error {}

/** Counters and gauges in llama.cpp server's terms (its /metrics). */
export interface EngineStats {
  readonly processing: number;
  readonly deferred: number;
  readonly kvCacheTokens: number;
  readonly kvCacheUsageRatio: number;
  readonly promptTokensTotal: number;
  readonly promptSecondsTotal: number;
  readonly tokensPredictedTotal: number;
  readonly tokensPredictedSecondsTotal: number;
}

export class LlamaEngine {
  readonly modelId: string;
  readonly requests: EngineRequestLog[] = [];
  readonly #llama: Llama;
  readonly #model: LlamaModel;
  readonly #context: LlamaContext;
  readonly #chat: JinjaTemplateChatWrapper;
  readonly #free: LlamaContextSequence[];
  readonly #all: readonly LlamaContextSequence[];
  readonly #waiting: ((sequence: LlamaContextSequence) => void)[] = [];
  readonly #maxQueue: number;
  #promptTokens = 0;
  #promptMs = 0;
  #predicted = 0;
  #predictMs = 0;

  private constructor(llama: Llama, model: LlamaModel, context: LlamaContext, maxQueue: number) {
    this.#llama = llama;
    this.#model = model;
    this.#context = context;
    this.#maxQueue = maxQueue;
    this.modelId = model.fileInfo.metadata.general.name ?? 'tiny-llama';
    const template = model.fileInfo.metadata.tokenizer.chat_template;
    if (template === undefined) throw new Error('the model has no tokenizer.chat_template');
    this.#chat = new JinjaTemplateChatWrapper({ template });
    const sequences: LlamaContextSequence[] = [];
    for (let i = 0; i < context.totalSequences; i++) sequences.push(context.getSequence());
    this.#all = sequences;
    this.#free = [...sequences];
  }

  static async start(options: LlamaEngineOptions): Promise<LlamaEngine> {
    const llama = await getLlama({ gpu: false, build: 'never', logLevel: LlamaLogLevel.warn });
    const model = await llama.loadModel({ modelPath: options.modelPath });
    const context = await model.createContext({
      contextSize: options.contextSize ?? 4096,
      sequences: options.sequences ?? 2,
      batchSize: options.batchSize ?? 512,
      threads: options.threads ?? 1,
    });
    return new LlamaEngine(llama, model, context, options.maxQueue ?? 32);
  }

  get contextSize(): number {
    return this.#context.contextSize;
  }

  /** The engine's own tokenizer (special tokens as text, not as control tokens). */
  tokenize(text: string): Token[] {
    return this.#model.tokenize(text);
  }

  /** The prompt's tokens: the model's chat template applied to `messages`, with the assistant turn opened. */
  promptTokens(messages: readonly ChatMessage[]): Token[] {
    const history: ChatHistoryItem[] = messages.map((m) =>
      m.role === 'assistant'
        ? { type: 'model', response: [m.content] }
        : { type: m.role === 'system' ? 'system' : 'user', text: m.content },
    );
    history.push({ type: 'model', response: [] });
    return this.#chat.generateContextState({ chatHistory: history }).contextText.tokenize(this.#model.tokenizer);
  }

  stats(): EngineStats {
    const cached = this.#all.reduce((sum, s) => sum + s.nextTokenIndex, 0);
    return {
      processing: this.#all.length - this.#free.length,
      deferred: this.#waiting.length,
      kvCacheTokens: cached,
      kvCacheUsageRatio: cached / (this.#context.contextSize * this.#all.length),
      promptTokensTotal: this.#promptTokens,
      promptSecondsTotal: this.#promptMs / 1000,
      tokensPredictedTotal: this.#predicted,
      tokensPredictedSecondsTotal: this.#predictMs / 1000,
    };
  }

  /**
   * Waits for a sequence, then generates, calling `onText` with each piece of text that can no longer
   * become part of a stop string. Throws EngineOverloadedError at once when the queue is full. Aborting
   * `signal` (the client went away) ends the generation and frees the sequence.
   */
  async generate(
    log: EngineRequestLog,
    prompt: readonly Token[],
    params: GenerateParams,
    onText: (text: string) => void,
    signal: AbortSignal,
  ): Promise<void> {
    const sequence = await this.#acquire();
    if (signal.aborted) {
      await this.#release(sequence);
      return;
    }
    log.startedMs = performance.now();
    log.promptTokens = prompt.length;
    const tokens: Token[] = [];
    let emitted = 0;
    let stopAt = -1;
    try {
      const evaluation = sequence.evaluate([...prompt], {
        temperature: params.temperature,
        seed: params.seed,
        ...(params.logitBias === null ? {} : { tokenBias: this.#tokenBias(params.logitBias) }),
      });
      for await (const token of evaluation) {
        const now = performance.now();
        if (log.tokenTimesMs.length === 0) {
          this.#promptTokens += prompt.length;
          this.#promptMs += now - log.startedMs;
        } else this.#predictMs += now - (log.tokenTimesMs.at(-1) as number);
        log.tokenTimesMs.push(now);
        if (signal.aborted) break;
        if (this.#model.isEogToken(token)) {
          log.finishReason = 'stop';
          break;
        }
        tokens.push(token);
        this.#predicted++;
        const text = this.#model.detokenize(tokens);
        stopAt = firstStop(text, params.stop);
        const safe = stopAt >= 0 ? stopAt : safeLength(text, params.stop);
        if (safe > emitted) {
          onText(text.slice(emitted, safe));
          emitted = safe;
        }
        if (stopAt >= 0) {
          log.finishReason = 'stop';
          break;
        }
        if (tokens.length >= params.maxTokens) {
          log.finishReason = 'length';
          break;
        }
      }
      const text = this.#model.detokenize(tokens);
      const end = stopAt >= 0 ? stopAt : text.length;
      if (end > emitted && !signal.aborted) onText(text.slice(emitted, end));
      log.text = text.slice(0, end);
      log.completionTokens = tokens.length;
    } finally {
      log.endedMs = performance.now();
      await this.#release(sequence);
    }
  }

  #tokenBias(logitBias: Readonly<Record<string, number>>): TokenBias {
    const bias = new TokenBias(this.#model.tokenizer);
    for (const [id, value] of Object.entries(logitBias)) bias.set(Number(id) as Token, { logit: value });
    return bias;
  }

  #acquire(): Promise<LlamaContextSequence> {
    const sequence = this.#free.pop();
    if (sequence !== undefined) return Promise.resolve(sequence);
    if (this.#waiting.length >= this.#maxQueue)
      return Promise.reject(
        new EngineOverloadedError(
          `all ${this.#all.length} sequences busy and ${this.#waiting.length} requests waiting`,
        ),
      );
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  async #release(sequence: LlamaContextSequence): Promise<void> {
    // No prefix reuse between requests: each starts from an empty sequence (its KV cells freed).
    await sequence.clearHistory();
    const next = this.#waiting.shift();
    if (next === undefined) this.#free.push(sequence);
    else next(sequence);
  }

  /** Frees the context, the model and llama.cpp's backend. */
  async close(): Promise<void> {
    await this.#context.dispose();
    await this.#model.dispose();
    await this.#llama.dispose();
  }
}

/** Where the first stop string starts in `text`, or -1. */
function firstStop(text: string, stop: readonly string[]): number {
  let first = -1;
  for (const s of stop) {
    const at = text.indexOf(s);
    if (at >= 0 && (first < 0 || at < first)) first = at;
  }
  return first;
}

/**
 * How much of `text` can be sent: not a tail that may still grow into a stop string, nor a trailing
 * U+FFFD (a character whose UTF-8 bytes are split across tokens).
 */
function safeLength(text: string, stop: readonly string[]): number {
  let safe = text.length;
  while (safe > 0 && text.charCodeAt(safe - 1) === 0xfffd) safe--;
  for (const s of stop) {
    for (let k = Math.min(s.length - 1, text.length); k > 0; k--) {
      if (text.endsWith(s.slice(0, k))) {
        safe = Math.min(safe, text.length - k);
        break;
      }
    }
  }
  return safe;
}
