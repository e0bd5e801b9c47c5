/**
 * A purpose-built Prometheus endpoint that speaks one engine's names (vLLM, SGLang, TGI, llama.cpp, DCGM,
 * Triton, Triton with the TensorRT-LLM backend, Dynamo's frontend)
 * with values that are known functions of a step the test sets (`server.step = 3`), so a test knows what
 * any two scrapes must give over the window between them. Every body also carries `test_step <step>`: a
 * test keeps it (`metrics: [test_step]`) to tell which step each scrape saw. It can misbehave on demand:
 * `hang` (accepts, never answers), `html` (a login page), `huge` (streams 50 MB, counting what it managed
 * to write before the client stopped reading), `http_500`; `delayMs` answers every scrape that long after it
 * came (an endpoint slower than the scrape interval); and `down()`/`up()` close and reopen it on the
 * same port (a server that disappears mid-run and comes back). Every request's Authorization is recorded.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { ServerMetricsSpec } from '../../src/profile/resolved-profile.js';
import type { ServerScrape } from '../../src/client/server-metrics/scraper.js';

export type EngineBody =
  | 'vllm'
  | 'sglang'
  | 'tgi'
  | 'llamacpp'
  | 'dcgm'
  | 'vllm-old'
  | 'triton'
  | 'trtllm'
  | 'dynamo'
  | 'dynamo-active';
export type Misbehaviour = 'none' | 'hang' | 'html' | 'html-as-text' | 'huge' | 'http_500' | 'malformed';

/** TTFT-like histogram buckets (seconds) and, per step, how many observations fall in each. */
export const BUCKETS = [0.1, 0.5, 1] as const;
/** Per step: 4 observations <= 0.1 s, 4 in (0.1, 0.5], 2 in (0.5, 1], none above; sum 2.4 s. */
const PER_STEP = { le01: 4, le05: 4, le1: 2, sum: 2.4 } as const;

/** The known values of a step (per model label set "a"; "b" is twice "a" where it is a count). */
export function knownValues(step: number) {
  return {
    running: 2 + step,
    waiting: 3 * step,
    kv: 0.1 * (step + 1),
    preemptions: 5 * step,
    hits: 30 * step,
    queries: 40 * step,
    promptTokens: 1000 * step,
    generationTokens: 500 * step,
    gpuUtilPercent: 10 * (step + 1),
    fbUsedMiB: 1000 + 100 * step,
    powerW: 200 + 10 * step,
    energyMj: 1_000_000 * step,
  };
}

function histogram(name: string, labels: string, step: number, factor = 1, header = true): string {
  const n = (x: number) => x * step * factor;
  const cumulative = [
    n(PER_STEP.le01),
    n(PER_STEP.le01 + PER_STEP.le05),
    n(PER_STEP.le01 + PER_STEP.le05 + PER_STEP.le1),
  ];
  const sep = labels === '' ? '' : ',';
  const lines = header ? [`# HELP ${name} a histogram`, `# TYPE ${name} histogram`] : [];
  // vLLM's order: _sum first, then buckets, then _count (prometheus_client's order differs: both are read).
  lines.push(`${name}_sum{${labels}} ${PER_STEP.sum * step * factor}`);
  BUCKETS.forEach((le, i) => {
    lines.push(`${name}_bucket{le="${le}"${sep}${labels}} ${cumulative[i]}`);
  });
  lines.push(`${name}_bucket{le="+Inf"${sep}${labels}} ${cumulative[2]}`);
  lines.push(`${name}_count{${labels}} ${cumulative[2]}`);
  return lines.join('\n');
}

function body(engine: EngineBody, step: number): string {
  const v = knownValues(step);
  const model = (m: string) => `model_name="${m}"`;
  const out: string[] = [];
  const both = (f: (labels: string, k: number) => string) => out.push(f(model('a'), 1), f(model('b'), 2));
  switch (engine) {
    case 'vllm':
    case 'vllm-old': {
      const old = engine === 'vllm-old';
      out.push('# TYPE vllm:num_requests_running gauge');
      both((l, k) => `vllm:num_requests_running{${l}} ${v.running * k}`);
      out.push('# TYPE vllm:num_requests_waiting gauge');
      both((l, k) => `vllm:num_requests_waiting{${l}} ${v.waiting * k}`);
      const kv = old ? 'vllm:gpu_cache_usage_perc' : 'vllm:kv_cache_usage_perc';
      out.push(`# TYPE ${kv} gauge`);
      // b's KV use is lower: the max over label sets is a's.
      both((l, k) => `${kv}{${l}} ${k === 1 ? v.kv : v.kv / 2}`);
      out.push('# TYPE vllm:num_preemptions_total counter');
      both((l, k) => `vllm:num_preemptions_total{${l}} ${v.preemptions * k}`);
      const prefix = old ? 'vllm:gpu_prefix_cache_' : 'vllm:prefix_cache_';
      out.push(`# TYPE ${prefix}hits_total counter`);
      both((l, k) => `${prefix}hits_total{${l}} ${v.hits * k}`);
      out.push(`# TYPE ${prefix}queries_total counter`);
      both((l, k) => `${prefix}queries_total{${l}} ${v.queries * k}`);
      out.push('# TYPE vllm:prompt_tokens_total counter');
      both((l, k) => `vllm:prompt_tokens_total{${l}} ${v.promptTokens * k}`);
      out.push(`vllm:prompt_tokens_created{${model('a')}} 1.7e9`);
      out.push('# TYPE vllm:generation_tokens_total counter');
      both((l, k) => `vllm:generation_tokens_total{${l}} ${v.generationTokens * k}`);
      both((l, k) => histogram('vllm:time_to_first_token_seconds', l, step, k, k === 1));
      both((l, k) => histogram('vllm:request_queue_time_seconds', l, step, k, k === 1));
      // An escaped label value, a NaN gauge and a timestamp the format allows: read, not tripped over.
      out.push('# TYPE vllm:cache_config_info gauge');
      out.push('vllm:cache_config_info{block_size="16",note="a \\"quoted\\" \\\\ value\\n"} 1 1700000000000');
      out.push('vllm:lora_requests_info{running_lora_adapters=""} NaN');
      // Names no preset reads, for `metrics:` extras: a gauge (step, 2 x step for b), a counter (7 x step,
      // 14 x step) and a histogram (the same buckets as TTFT's) in seconds.
      out.push('# TYPE vllm:num_requests_swapped gauge');
      both((l, k) => `vllm:num_requests_swapped{${l}} ${step * k}`);
      out.push('# TYPE vllm:request_success_total counter');
      both((l, k) => `vllm:request_success_total{${l}} ${7 * step * k}`);
      both((l, k) => histogram('vllm:e2e_request_latency_seconds', l, step, k, k === 1));
      break;
    }
    case 'sglang':
      out.push('# TYPE sglang:num_running_reqs gauge');
      both((l, k) => `sglang:num_running_reqs{${l}} ${v.running * k}`);
      out.push('# TYPE sglang:num_queue_reqs gauge');
      both((l, k) => `sglang:num_queue_reqs{${l}} ${v.waiting * k}`);
      out.push('# TYPE sglang:token_usage gauge');
      both((l, k) => `sglang:token_usage{${l}} ${k === 1 ? v.kv : v.kv / 2}`);
      out.push('# TYPE sglang:cache_hit_rate gauge');
      both((l) => `sglang:cache_hit_rate{${l}} 0.75`);
      out.push('# TYPE sglang:prompt_tokens_total counter');
      both((l, k) => `sglang:prompt_tokens_total{${l}} ${v.promptTokens * k}`);
      out.push('# TYPE sglang:generation_tokens_total counter');
      both((l, k) => `sglang:generation_tokens_total{${l}} ${v.generationTokens * k}`);
      both((l, k) => histogram('sglang:time_to_first_token_seconds', l, step, k, k === 1));
      break;
    case 'tgi':
      out.push('# TYPE tgi_batch_current_size gauge', `tgi_batch_current_size ${v.running}`);
      out.push('# TYPE tgi_queue_size gauge', `tgi_queue_size ${v.waiting}`);
      out.push(histogram('tgi_request_queue_duration', '', step));
      out.push('# TYPE tgi_request_input_length histogram', `tgi_request_input_length_sum ${v.promptTokens}`);
      out.push(`tgi_request_input_length_count ${step}`);
      out.push('# TYPE tgi_request_generated_tokens histogram');
      out.push(`tgi_request_generated_tokens_sum ${v.generationTokens}`, `tgi_request_generated_tokens_count ${step}`);
      break;
    case 'llamacpp':
      out.push('# TYPE llamacpp:requests_processing gauge', `llamacpp:requests_processing ${v.running}`);
      out.push('# TYPE llamacpp:requests_deferred gauge', `llamacpp:requests_deferred ${v.waiting}`);
      out.push('# TYPE llamacpp:kv_cache_usage_ratio gauge', `llamacpp:kv_cache_usage_ratio ${v.kv}`);
      out.push('# TYPE llamacpp:prompt_tokens_total counter', `llamacpp:prompt_tokens_total ${v.promptTokens}`);
      out.push(
        '# TYPE llamacpp:tokens_predicted_total counter',
        `llamacpp:tokens_predicted_total ${v.generationTokens}`,
      );
      break;
    case 'dcgm':
      for (const gpu of ['0', '1']) {
        const l = `gpu="${gpu}",UUID="GPU-${gpu}",modelName="NVIDIA H100 80GB HBM3"`;
        // GPU 1 is twice as busy as GPU 0 in use; equal in memory, power and energy.
        out.push(`DCGM_FI_DEV_GPU_UTIL{${l}} ${gpu === '0' ? v.gpuUtilPercent : 2 * v.gpuUtilPercent}`);
        out.push(`DCGM_FI_DEV_FB_USED{${l}} ${v.fbUsedMiB}`);
        out.push(`DCGM_FI_DEV_POWER_USAGE{${l}} ${v.powerW}`);
        out.push(`DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{${l}} ${v.energyMj}`);
      }
      break;
    case 'triton':
    case 'trtllm': {
      // Triton's own per-model queue (trtllm reads it only when its batcher's waiting count is missing:
      // here it is there, and this one is off by 100 to tell which was read).
      const tritonModel = engine === 'trtllm' ? 'model="tensorrt_llm",version="1"' : null;
      out.push('# TYPE nv_inference_pending_request_count gauge');
      if (tritonModel === null) {
        out.push(`nv_inference_pending_request_count{model="a",version="1"} ${v.waiting}`);
        out.push(`nv_inference_pending_request_count{model="b",version="1"} ${2 * v.waiting}`);
      } else out.push(`nv_inference_pending_request_count{${tritonModel}} ${v.waiting + 100}`);
      out.push(
        '# TYPE nv_inference_request_success counter',
        `nv_inference_request_success{model="a",version="1"} ${7 * step}`,
      );
      if (tritonModel !== null) {
        // The TensorRT-LLM backend: one family per kind, the quantity in a label; the others (scheduled,
        // context, max; KV blocks max, used, free, tokens_per) must not be summed in.
        out.push('# TYPE nv_trt_llm_request_metrics gauge');
        const requests: [string, number][] = [
          ['active', v.running],
          ['waiting', v.waiting],
          ['scheduled', v.running - 1],
          ['context', 1],
          ['max', 512],
        ];
        for (const [type, n] of requests)
          out.push(`nv_trt_llm_request_metrics{${tritonModel},request_type="${type}"} ${n}`);
        out.push('# TYPE nv_trt_llm_kv_cache_block_metrics gauge');
        const blocks: [string, number][] = [
          ['fraction', v.kv],
          ['max', 6239],
          ['used', Math.round(6239 * v.kv)],
          ['free', 6239 - Math.round(6239 * v.kv)],
          ['tokens_per', 64],
        ];
        for (const [type, n] of blocks)
          out.push(`nv_trt_llm_kv_cache_block_metrics{kv_cache_block_type="${type}",${tritonModel}} ${n}`);
      }
      // Triton's GPU metrics: use 0..1, memory in bytes, power in W, energy in J since Triton started.
      for (const gpu of ['0', '1']) {
        const l = `gpu_uuid="GPU-${gpu}"`;
        const util = (gpu === '0' ? v.gpuUtilPercent : 2 * v.gpuUtilPercent) / 100;
        out.push(`nv_gpu_utilization{${l}} ${util}`);
        out.push(`nv_gpu_memory_used_bytes{${l}} ${v.fbUsedMiB * 1024 * 1024}`);
        out.push(`nv_gpu_power_usage{${l}} ${v.powerW}`);
        out.push(`nv_energy_consumption{${l}} ${v.energyMj / 1000}`);
      }
      break;
    }
    case 'dynamo':
    case 'dynamo-active': {
      // The HTTP frontend, per model; `dynamo-active` has the newer active_requests instead of inflight.
      const running = engine === 'dynamo' ? 'dynamo_frontend_inflight_requests' : 'dynamo_frontend_active_requests';
      out.push(`# TYPE ${running} gauge`);
      both((l, k) => `${running}{${l.replace('model_name', 'model')}} ${v.running * k}`);
      out.push('# TYPE dynamo_frontend_queued_requests gauge');
      both((l, k) => `dynamo_frontend_queued_requests{${l.replace('model_name', 'model')}} ${v.waiting * k}`);
      out.push('# TYPE dynamo_frontend_requests_total counter');
      both((l, k) => `dynamo_frontend_requests_total{${l.replace('model_name', 'model')}} ${10 * step * k}`);
      both((l, k) =>
        histogram('dynamo_frontend_time_to_first_token_seconds', l.replace('model_name', 'model'), step, k, k === 1),
      );
      both((l, k) =>
        histogram('dynamo_frontend_inter_token_latency_seconds', l.replace('model_name', 'model'), step, k, k === 1),
      );
      break;
    }
  }
  out.push('# TYPE test_step gauge', `test_step ${step}`);
  return `${out.join('\n')}\n`;
}

export interface EngineMetricsServer {
  readonly url: string;
  readonly port: number;
  step: number;
  mode: Misbehaviour;
  /** Each answer is sent this long after its request came (0: at once). */
  delayMs: number;
  /** The Authorization header of every request, in order (undefined: none). */
  readonly authorizations: (string | undefined)[];
  /** Bytes of the last `huge` answer that were written before the client stopped reading. */
  readonly hugeBytesWritten: () => number;
  /** Closes the listener and every connection: the endpoint is gone. */
  down(): Promise<void>;
  /** Listens again on the same port. */
  up(): Promise<void>;
  close(): Promise<void>;
}

const HUGE_BYTES = 50 * 1024 * 1024;

export async function startEngineMetricsServer(engine: EngineBody): Promise<EngineMetricsServer> {
  const sockets = new Set<Socket>();
  let hugeWritten = 0;
  const hanging: ServerResponse[] = [];
  const delayed = new Set<NodeJS.Timeout>();
  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    if (state.delayMs > 0) {
      const timer = setTimeout(() => {
        delayed.delete(timer);
        if (!res.destroyed) answer(req, res);
      }, state.delayMs);
      delayed.add(timer);
      return;
    }
    answer(req, res);
  };
  const answer = (req: IncomingMessage, res: ServerResponse): void => {
    state.authorizations.push(req.headers.authorization);
    switch (state.mode) {
      case 'hang':
        hanging.push(res);
        return;
      case 'html':
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end('<!doctype html><html><body>Sign in</body></html>');
        return;
      case 'html-as-text':
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('<!doctype html><html><body>Sign in</body></html>');
        return;
      case 'http_500':
        res.writeHead(500, { 'content-type': 'text/plain' });
        res.end('boom');
        return;
      case 'malformed':
        res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' });
        res.end('vllm:num_requests_running{model_name="a" 1\nvllm:num_requests_waiting{ 2\n');
        return;
      case 'huge': {
        res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' });
        hugeWritten = 0;
        const chunk = Buffer.from(`${'filler_metric{i="0123456789"} 1\n'.repeat(2048)}`);
        const pump = (): void => {
          while (hugeWritten < HUGE_BYTES) {
            if (res.destroyed) return;
            const ok = res.write(chunk, (error) => {
              if (!error) hugeWritten += chunk.length;
            });
            if (!ok) {
              res.once('drain', pump);
              return;
            }
          }
          res.end();
        };
        res.on('error', () => undefined);
        pump();
        return;
      }
      default:
        res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' });
        res.end(body(engine, state.step));
    }
  };
  let server = createServer(handle);
  const track = (s: ReturnType<typeof createServer>) =>
    s.on('connection', (socket: Socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
  track(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const closeAll = async (): Promise<void> => {
    for (const res of hanging.splice(0)) res.destroy();
    for (const timer of delayed) clearTimeout(timer);
    delayed.clear();
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  const state: EngineMetricsServer = {
    url: `http://127.0.0.1:${port}/metrics`,
    port,
    step: 0,
    mode: 'none',
    delayMs: 0,
    authorizations: [],
    hugeBytesWritten: () => hugeWritten,
    down: closeAll,
    up: async () => {
      server = createServer(handle);
      track(server);
      await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    },
    close: async () => {
      if (server.listening) await closeAll();
    },
  };
  return state;
}

/**
 * An endpoint of target.server_metrics as resolved, scraping every 100 ms and keeping `test_step`. Its
 * timeout is far past the interval: on a loaded machine a slow answer only makes ticks skip, never a failure
 * the presets' windows would count (tests of timeouts set their own).
 */
export function endpointSpec(url: string, overrides: Partial<ServerMetricsSpec> = {}): ServerMetricsSpec {
  return {
    url,
    preset: 'auto',
    intervalMs: 100,
    timeoutMs: 5_000,
    metrics: ['test_step'],
    labels: {},
    headers: {},
    apiKeyEnv: null,
    ...overrides,
  };
}

/** The known-values step a scrape of this server saw (its `test_step` gauge). */
export function stepOf(scrape: ServerScrape): number | undefined {
  return scrape.samples.find((sample) => sample.name === 'test_step')?.value;
}
