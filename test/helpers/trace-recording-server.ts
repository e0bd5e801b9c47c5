/**
 * A purpose-built server for trace replay tests: records when each chat completion arrived
 * (performance.now(), at its headers) with its parsed body, and answers after `holdMs` with a short
 * non-streaming completion whose usage echoes max_completion_tokens. `GET /v1/models` names one model.
 */
import { sendJson, startTestServer, type TestServer } from './fault-servers.js';

export const TRACE_MODEL = 'trace-model';

export interface RecordedArrival {
  readonly arrivedMs: number;
  readonly body: Record<string, unknown>;
}

export interface TraceRecordingServer extends TestServer {
  /** Chat completions in arrival order. */
  readonly arrivals: RecordedArrival[];
}

export async function startTraceRecordingServer(options: { holdMs?: number } = {}): Promise<TraceRecordingServer> {
  const arrivals: RecordedArrival[] = [];
  const holdMs = options.holdMs ?? 0;
  const server = await startTestServer((req, res) => {
    if (req.method === 'GET' && req.url.endsWith('/v1/models')) {
      sendJson(res, 200, {
        object: 'list',
        data: [{ id: TRACE_MODEL, object: 'model', created: 0, owned_by: 'test' }],
      });
      return;
    }
    const body = JSON.parse(req.body.toString('utf8')) as Record<string, unknown>;
    arrivals.push({ arrivedMs: req.arrivedMs, body });
    const completion = typeof body.max_completion_tokens === 'number' ? body.max_completion_tokens : 1;
    const answer = (): void =>
      sendJson(res, 200, {
        id: `chatcmpl-${arrivals.length}`,
        object: 'chat.completion',
        created: 1_700_000_000,
        model: TRACE_MODEL,
        choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'length' }],
        usage: { prompt_tokens: 10, completion_tokens: completion, total_tokens: 10 + completion },
      });
    if (holdMs <= 0) answer();
    else {
      const timers = (res as typeof res & { timers: Set<NodeJS.Timeout> }).timers;
      const timer = setTimeout(() => {
        timers.delete(timer);
        answer();
      }, holdMs);
      timers.add(timer);
    }
  });
  return Object.assign(server, { arrivals });
}
