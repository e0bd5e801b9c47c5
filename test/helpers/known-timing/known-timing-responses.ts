/**
 * Every byte the known-timing server sends, built once when it starts: the stream's head and SSE chunks
 * (HTTP chunked framing included, so a write costs no JSON work), the body of a non-streamed answer, the
 * models list and the 404, with the usage and time_info they report.
 */
import type { TimeInfo, Usage } from '../../../src/protocol/chat.js';
import { httpChunk, responseHead } from './http1-framing.js';
import type { KnownTimingOptions } from './known-timing-server.js';

/** The prebuilt answers of one server. */
export interface KnownTimingResponses {
  readonly usage: Usage;
  readonly timeInfo: TimeInfo;
  /** The head of a streamed answer, for a connection kept alive or closed after it. */
  readonly streamHead: { readonly keepAlive: Buffer; readonly close: Buffer };
  /** The role-only chunk, null when the options leave it out. */
  readonly roleChunk: Buffer | null;
  readonly tokenChunk: Buffer;
  /** finish_reason, time_info and (unless turned off) usage. */
  readonly finalChunk: Buffer;
  /** `data: [DONE]`, null unless the options ask for it. */
  readonly doneChunk: Buffer | null;
  readonly completionBody: Buffer;
  readonly modelsBody: Buffer;
  readonly notFoundBody: Buffer;
}

/** The fields every chunk and the non-streamed body open with. */
interface ChunkBase {
  readonly id: string;
  readonly object: string;
  readonly created: number;
  readonly model: string;
  readonly system_fingerprint: string;
}

/** One SSE event as one HTTP chunk of a chunked response. */
function sseChunk(payload: string): Buffer {
  return httpChunk(Buffer.from(`data: ${payload}\n\n`, 'utf8'));
}

/** Builds every answer from the options (their defaults applied here). */
export function buildResponses(options: KnownTimingOptions): KnownTimingResponses {
  const { ttftMs, itlMs, tokens } = options;
  const model = options.model ?? 'known-timing';
  const tokenText = options.tokenText ?? ' tok';
  const promptTokens = options.promptTokens ?? 16;
  const usage: Usage = { prompt_tokens: promptTokens, completion_tokens: tokens, total_tokens: promptTokens + tokens };
  const timeInfo: TimeInfo = options.timeInfo ?? {
    queue_time: 0,
    prompt_time: ttftMs / 1000,
    completion_time: ((tokens - 1) * itlMs) / 1000,
    total_time: (ttftMs + (tokens - 1) * itlMs) / 1000,
    created: 1_767_225_600.5,
  };
  const base: ChunkBase = {
    id: 'chatcmpl-known',
    object: 'chat.completion.chunk',
    created: 1_767_225_600,
    model,
    system_fingerprint: 'fp_known',
  };
  const reportedUsage = (options.usage ?? true) ? usage : null;
  return {
    usage,
    timeInfo,
    ...streamChunks(base, tokenText, reportedUsage, timeInfo, options),
    completionBody: completionBody(base, tokenText.repeat(tokens), reportedUsage, timeInfo),
    modelsBody: Buffer.from(
      JSON.stringify({
        object: 'list',
        data: [{ id: model, object: 'model', created: base.created, owned_by: 'inferbench' }],
      }),
    ),
    notFoundBody: Buffer.from('{"message":"not found","type":"not_found_error","param":null,"code":"not_found"}'),
  };
}

/** The head and the chunks of a streamed answer. */
function streamChunks(
  base: ChunkBase,
  tokenText: string,
  usage: Usage | null,
  timeInfo: TimeInfo,
  options: KnownTimingOptions,
): Pick<KnownTimingResponses, 'streamHead' | 'roleChunk' | 'tokenChunk' | 'finalChunk' | 'doneChunk'> {
  const head = (keepAlive: boolean): Buffer =>
    responseHead(
      '200 OK',
      { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'transfer-encoding': 'chunked' },
      keepAlive,
    );
  const finalPayload: Record<string, unknown> = {
    ...base,
    choices: [{ index: 0, delta: {}, finish_reason: 'length' }],
    time_info: timeInfo,
  };
  if (usage !== null) finalPayload['usage'] = usage;
  const roleChunk = sseChunk(
    JSON.stringify({
      ...base,
      choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }],
    }),
  );
  return {
    streamHead: { keepAlive: head(true), close: head(false) },
    roleChunk: (options.roleChunk ?? true) ? roleChunk : null,
    tokenChunk: sseChunk(
      JSON.stringify({ ...base, choices: [{ index: 0, delta: { content: tokenText }, finish_reason: null }] }),
    ),
    finalChunk: sseChunk(JSON.stringify(finalPayload)),
    doneChunk: (options.doneMarker ?? false) ? sseChunk('[DONE]') : null,
  };
}

/** The body of a non-streamed answer: the whole text at once, with the same usage and time_info. */
function completionBody(base: ChunkBase, content: string, usage: Usage | null, timeInfo: TimeInfo): Buffer {
  return Buffer.from(
    JSON.stringify({
      id: base.id,
      object: 'chat.completion',
      created: base.created,
      model: base.model,
      system_fingerprint: base.system_fingerprint,
      choices: [
        {
          index: 0,
          finish_reason: 'length',
          message: { role: 'assistant', content, tool_calls: null },
          logprobs: null,
        },
      ],
      ...(usage !== null ? { usage } : {}),
      time_info: timeInfo,
    }),
    'utf8',
  );
}
