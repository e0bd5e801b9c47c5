/**
 * A chat-completions server whose TTFT has a KNOWN distribution, for checking a capacity step's decision
 * error rates against a real socket: each request's first token comes after `fastMs`, or after `slowMs`
 * with probability `slowShare` (a seeded draw per request, in arrival order), and the answer ends right
 * after it. With an SLO limit between the two, the exceedance fraction is exactly `slowShare` whatever
 * the load, so a step is a true pass (share <= the SLO's allowed fraction) or a true fail by construction.
 * Answers GET .../v1/models with its one model. `setSlowShare` changes the share for later requests.
 */
import type { ServerResponse } from 'node:http';
import { createRng } from '../../src/util/rng.js';
import { startTestServer, type TestServer } from './fault-servers.js';

export const KNOWN_LATENCY_MODEL = 'known-latency-model';

export interface KnownLatencyOptions {
  readonly fastMs: number;
  readonly slowMs: number;
  readonly slowShare: number;
  readonly seed: number;
}

export interface KnownLatencyServer extends TestServer {
  setSlowShare(share: number): void;
  /** Chat requests answered slow, and in all. */
  readonly counts: () => { slow: number; total: number };
}

const chunk = (body: unknown): string => `data: ${JSON.stringify(body)}\n\n`;

function answer(res: ServerResponse): void {
  if (res.destroyed) return;
  const base = { id: 'k', object: 'chat.completion.chunk', model: KNOWN_LATENCY_MODEL };
  res.write(chunk({ ...base, choices: [{ index: 0, delta: { content: ' tok' }, finish_reason: null }] }));
  res.end(
    chunk({
      ...base,
      choices: [{ index: 0, delta: {}, finish_reason: 'stop' }],
      usage: { prompt_tokens: 16, completion_tokens: 1, total_tokens: 17 },
    }),
  );
}

export async function startKnownLatencyServer(options: KnownLatencyOptions): Promise<KnownLatencyServer> {
  const rng = createRng(options.seed);
  let share = options.slowShare;
  let slow = 0;
  let total = 0;
  const server = await startTestServer((req, res) => {
    if (req.method === 'GET' && req.url.endsWith('/v1/models')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      const model = { id: KNOWN_LATENCY_MODEL, object: 'model', created: 0, owned_by: 'test' };
      res.end(JSON.stringify({ object: 'list', data: [model] }));
      return;
    }
    const isSlow = rng.next() < share;
    total++;
    if (isSlow) slow++;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    setTimeout(() => answer(res), isSlow ? options.slowMs : options.fastMs);
  });
  return {
    ...server,
    setSlowShare: (next) => {
      share = next;
    },
    counts: () => ({ slow, total }),
  };
}

/**
 * `groups` one-step searches at one stream (both the start and the most allowed) against the known-latency
 * model, a p90 SLO of 40 ms: each group's last step is one decision. The profile of `npm run bench
 * capacity`'s decisions (their error rates are tested over simulated steps: exceedance-sprt.test.ts).
 */
export function oneStepProfile(name: string, groups: number, offset: number): string {
  const scenarios = Array.from(
    { length: groups },
    (_, i) => `  - name: s${offset + i}
    models: [${KNOWN_LATENCY_MODEL}]
    load: { mode: concurrency, concurrency: 1 }
    duration: 10s
    seed: ${offset + i + 1}
    prompt: { input_tokens: 16, output_tokens: 1 }
`,
  ).join('');
  return `name: ${name}
scenarios:
${scenarios}capacity:
  slo: { ttft_ms.p90: 40ms }
  start: 1
  max_load: 1
  max_steps: 2
  block: 250ms
  step_duration: 20s
  step_warmup: 0s
`;
}
