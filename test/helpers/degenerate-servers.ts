/**
 * Purpose-built servers (127.0.0.1, port 0) that send what a degenerate model sends: one 8 MiB event of
 * one repeated character, a 1 MiB run of one character spread over many events, a stream of 100,000 tiny
 * chunks. Each answers GET /v1/models with one model and every POST with the stream of its kind, with
 * usage in the final chunk or none. Regression servers for the freeze of issue 9 (one 8 MiB event held
 * the process for over 10 minutes, deaf to SIGTERM).
 */
import type { ServerResponse } from 'node:http';
import { sendJson, startTestServer, type TestServer } from './fault-servers.js';

export const DEGENERATE_MODEL = 'degenerate';

export type DegenerateKind = 'one-8mib-event' | 'run-over-events' | 'tiny-chunks';

export interface DegenerateAnswer {
  /** The content events' payloads, in order (the final chunk follows). */
  readonly contents: readonly string[];
  /** Events written per res.write (a batch lands in the client as a few reads). */
  readonly eventsPerWrite: number;
  /** The exact o200k count of the whole text (what usage reports). */
  readonly tokens: number;
}

/** 8 x's are one o200k token, and " x" is one token: the counts are known exactly. */
export function degenerateAnswer(kind: DegenerateKind): DegenerateAnswer {
  switch (kind) {
    case 'one-8mib-event':
      return { contents: ['x'.repeat(8 << 20)], eventsPerWrite: 1, tokens: (8 << 20) / 8 };
    case 'run-over-events':
      return {
        contents: Array.from({ length: 1024 }, () => 'x'.repeat(1024)),
        eventsPerWrite: 64,
        tokens: (1 << 20) / 8,
      };
    case 'tiny-chunks':
      return { contents: Array.from({ length: 100_000 }, () => ' x'), eventsPerWrite: 2000, tokens: 100_000 };
  }
}

export interface DegenerateServer extends TestServer {
  /** Answers whose last byte has been written. */
  readonly answered: () => number;
}

const event = (payload: unknown): string => `data: ${JSON.stringify(payload)}\n\n`;

function chunk(content: string | null, finish: string | null, usage: unknown): Record<string, unknown> {
  const delta = content === null ? {} : { content };
  const body: Record<string, unknown> = {
    id: 'chatcmpl-degenerate',
    object: 'chat.completion.chunk',
    model: DEGENERATE_MODEL,
    choices: [{ index: 0, delta, finish_reason: finish }],
  };
  if (usage) body['usage'] = usage;
  return body;
}

/** Writes the answer in batches, yielding between them so the socket drains (and the client reads). */
function stream(res: ServerResponse, answer: DegenerateAnswer, usage: boolean, done: () => void): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.write(event(chunk(null, null, null)).replace('"delta":{}', '"delta":{"role":"assistant"}'));
  let next = 0;
  const writeBatch = (): void => {
    if (res.destroyed) return;
    if (next >= answer.contents.length) {
      const finalUsage = usage
        ? { prompt_tokens: 10, completion_tokens: answer.tokens, total_tokens: 10 + answer.tokens }
        : null;
      res.end(event(chunk(null, 'length', finalUsage)), done);
      return;
    }
    let text = '';
    const end = Math.min(answer.contents.length, next + answer.eventsPerWrite);
    for (; next < end; next++) text += event(chunk(answer.contents[next] as string, null, null));
    if (res.write(text)) setImmediate(writeBatch);
    else res.once('drain', writeBatch);
  };
  writeBatch();
}

/** A server that answers every completion with the degenerate stream `kind`, with or without usage. */
export async function startDegenerateServer(
  kind: DegenerateKind,
  options: { usage: boolean },
): Promise<DegenerateServer> {
  const answer = degenerateAnswer(kind);
  let answered = 0;
  const server = await startTestServer((req, res) => {
    if (req.method === 'GET') {
      sendJson(res, 200, {
        object: 'list',
        data: [{ id: DEGENERATE_MODEL, object: 'model', created: 0, owned_by: 'test' }],
      });
      return;
    }
    res.on('error', () => undefined);
    stream(res, answer, options.usage, () => answered++);
  });
  return Object.assign(server, { answered: () => answered });
}
