/**
 * The emulator's plain HTTP throughput, measured with autocannon (programmatic API): `inferbench serve`
 * in its own process on loopback, driven for a fixed short time per endpoint at 32 and 128 connections
 * (each connection sends its next request when the previous answer has arrived). Endpoints: the public
 * and authenticated model lists, the TCP-warming probe, and non-streaming chat completions of 16 tokens
 * on the small built-in model (whose simulated decode rate and slots bound it, not HTTP). Reports
 * requests/s, latency p50/p99, errors and non-2xx answers, and the emulator process's CPU (from
 * /proc/<pid>/stat, Linux only).
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { packageRoot } from '../src/cli/package-root.js';
import type { BenchContext, BenchOutcome, BenchRow, Benchmark } from './benchmark.js';

const DURATION_S = 5;
const CONNECTIONS = [32, 128] as const;
/** A throwaway key the emulator is told to accept; never a user's key. */
const BENCH_KEY = `ib-http-bench-${Math.random().toString(36).slice(2)}`;
/** Linux USER_HZ: /proc/<pid>/stat counts CPU time in 1/100 s. */
const CLOCK_TICKS_PER_S = 100;

interface Endpoint {
  readonly label: string;
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly auth: boolean;
  readonly body?: string;
}

const ENDPOINTS: readonly Endpoint[] = [
  { label: 'GET /public/v1/models', method: 'GET', path: '/public/v1/models', auth: false },
  { label: 'GET /v1/models', method: 'GET', path: '/v1/models', auth: true },
  { label: 'GET /v1/tcp_warming', method: 'GET', path: '/v1/tcp_warming', auth: true },
  {
    label: 'POST /v1/chat/completions (16 tok)',
    method: 'POST',
    path: '/v1/chat/completions',
    auth: true,
    body: JSON.stringify({
      model: 'small-fast-8b',
      messages: [{ role: 'user', content: 'Say hello.' }],
      max_completion_tokens: 16,
      stream: false,
    }),
  },
];

interface HttpResult {
  readonly endpoint: string;
  readonly connections: number;
  readonly durationS: number;
  readonly requests: number;
  readonly requestsPerS: number;
  readonly latencyMs: { readonly p50: number; readonly p99: number; readonly max: number };
  readonly errors: number;
  readonly timeouts: number;
  readonly non2xx: number;
  /** Emulator process CPU over the run, percent of one core; null where /proc is unavailable. */
  readonly emulatorCpuPercent: number | null;
}

interface ServeProcess {
  readonly url: string;
  readonly child: ChildProcess;
  stop(): Promise<void>;
}

/** `node dist/cli/main.js serve --port 0` as a child; its base URL is the first line of its stdout. */
async function startServe(): Promise<ServeProcess> {
  const main = join(packageRoot(), 'dist', 'cli', 'main.js');
  const args = [main, 'serve', '--host', '127.0.0.1', '--port', '0', '--api-key', BENCH_KEY];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (text: string) => {
    if (stderr.length < 4000) stderr += text;
  });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const url = await new Promise<string>((done, fail) => {
    let stdout = '';
    const timer = setTimeout(() => fail(new Error(`serve printed no URL within 30 s:\n${stderr}`)), 30_000);
    child.stdout.setEncoding('utf8').on('data', (text: string) => {
      stdout += text;
      const newline = stdout.indexOf('\n');
      if (newline >= 0) {
        clearTimeout(timer);
        done(stdout.slice(0, newline).trim().replace(/\/+$/, '').replace(/\/v1$/, ''));
      }
    });
    void exited.then(() => {
      clearTimeout(timer);
      fail(new Error(`serve exited before printing its URL:\n${stderr}`));
    });
  });
  return {
    url,
    child,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** utime + stime of a process in seconds, or null (not Linux, or gone). */
function cpuSecondsOf(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name (which may contain spaces): state is field 3,
    // utime and stime are fields 14 and 15.
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(rest[11]) + Number(rest[12])) / CLOCK_TICKS_PER_S;
  } catch {
    return null;
  }
}

async function runOne(serve: ServeProcess, endpoint: Endpoint, connections: number): Promise<HttpResult> {
  const headers: Record<string, string> = {};
  if (endpoint.auth) headers['authorization'] = `Bearer ${BENCH_KEY}`;
  if (endpoint.body !== undefined) headers['content-type'] = 'application/json';
  const cpuBefore = cpuSecondsOf(serve.child.pid);
  const wallBefore = performance.now();
  const result = await autocannon({
    url: `${serve.url}${endpoint.path}`,
    method: endpoint.method,
    headers,
    ...(endpoint.body !== undefined ? { body: endpoint.body } : {}),
    connections,
    duration: DURATION_S,
    timeout: 10,
  });
  const wallS = (performance.now() - wallBefore) / 1000;
  const cpuAfter = cpuSecondsOf(serve.child.pid);
  return {
    endpoint: endpoint.label,
    connections,
    durationS: result.duration,
    requests: result.requests.total,
    requestsPerS: result.requests.total / result.duration,
    latencyMs: { p50: result.latency.p50, p99: result.latency.p99, max: result.latency.max },
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    emulatorCpuPercent: cpuBefore === null || cpuAfter === null ? null : ((cpuAfter - cpuBefore) / wallS) * 100,
  };
}

async function run(ctx: BenchContext): Promise<BenchOutcome> {
  const serve = await startServe();
  ctx.log(`serve at ${serve.url} (pid ${serve.child.pid ?? '?'})`);
  const results: HttpResult[] = [];
  try {
    for (const endpoint of ENDPOINTS) {
      for (const connections of CONNECTIONS) {
        ctx.log(`${endpoint.label}, ${connections} connections, ${DURATION_S} s`);
        results.push(await runOne(serve, endpoint, connections));
      }
    }
  } finally {
    await serve.stop();
  }
  const rows: BenchRow[] = results.map((r) => ({
    endpoint: r.endpoint,
    conns: r.connections,
    'req/s': Math.round(r.requestsPerS),
    'p50 ms': r.latencyMs.p50,
    'p99 ms': r.latencyMs.p99,
    errors: r.errors,
    non2xx: r.non2xx,
    'emulator CPU %': r.emulatorCpuPercent === null ? 'n/a' : Math.round(r.emulatorCpuPercent),
  }));
  let loadavg = 'n/a';
  try {
    loadavg = readFileSync('/proc/loadavg', 'utf8').trim();
  } catch {
    // Not Linux: the load average is only context for the figures.
  }
  return {
    rows,
    json: { durationSPerRun: DURATION_S, connections: CONNECTIONS, loadavgAfter: loadavg, results },
    notes: [
      `load average after the runs (/proc/loadavg): ${loadavg}`,
      "chat completions are bounded by the small model's simulated decode (250 tokens/s per stream, 64 slots), not by HTTP",
    ],
  };
}

export const httpBenchmark: Benchmark = {
  description: `emulator HTTP throughput with autocannon: ${ENDPOINTS.length} endpoints x ${CONNECTIONS.join('/')} connections, ${DURATION_S} s each`,
  run,
};
