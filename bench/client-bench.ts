/**
 * `npm run bench client [--quick] [--skip section,...]`: the self-benchmark of inferbench's client ("never
 * the bottleneck"). The target server runs in a child pinned to core 0, the client under test in a child
 * pinned to core 1 (client-pinned-process.ts); this process only orchestrates. Each section measures some
 * targets against comparators measured in the same run, in alternating rounds (client-rounds.ts):
 *
 * - events: streamed events absorbed, inferbench vs the undici sink (client-events-section.ts)
 * - in-process: cost per event, and an 8 MiB event in 1,460-byte pieces (client-micro-section.ts)
 * - plain-http: non-streamed chat at 64 connections vs autocannon and wrk (client-http-section.ts)
 * - open-loop: lateness p99 and drops up to 5,000 arrivals/s (client-open-loop-section.ts)
 * - streams: 5,000 open streams, and cost per event from 10 to 1,000 streams (client-streams-section.ts)
 * - accuracy: TTFT error and GC pauses (client-accuracy.ts, its own processes)
 *
 * A section that fails is one line saying so; the others still run. One line per target is printed and
 * written to bench-results/client.json with the raw numbers behind it.
 */
import { readFileSync } from 'node:fs';
import type { BenchContext, BenchOutcome, BenchRow, Benchmark } from './benchmark.js';
import { measureClientAccuracy } from './client-accuracy.js';
import { measureEventsAbsorbed } from './client-events-section.js';
import type { SectionContext } from './client-hold-session.js';
import { measurePlainHttp } from './client-http-section.js';
import { measureInProcess } from './client-micro-section.js';
import { measureOpenLoop } from './client-open-loop-section.js';
import { PinnedProcess, type PinningPlan, pinningPlan } from './client-pinned-process.js';
import { round3, roundCount, unmeasured } from './client-rounds.js';
import { measureOpenStreams } from './client-streams-section.js';
import type { ClientSectionOutcome, ClientTargetResult } from './client-targets.js';

/** Sections run in the pinned children, in this order. */
const PINNED_SECTIONS = {
  events: measureEventsAbsorbed,
  'in-process': measureInProcess,
  'plain-http': measurePlainHttp,
  'open-loop': measureOpenLoop,
  streams: measureOpenStreams,
} satisfies Record<string, (ctx: SectionContext) => Promise<ClientSectionOutcome>>;

export const CLIENT_SECTIONS: readonly string[] = [...Object.keys(PINNED_SECTIONS), 'accuracy'];

function loadAverage(): string {
  try {
    return readFileSync('/proc/loadavg', 'utf8').trim();
  } catch {
    return 'n/a';
  }
}

function failedSection(section: string, error: unknown): ClientSectionOutcome {
  const message = error instanceof Error ? error.message : String(error);
  return {
    results: [unmeasured(section, 'section failed', '-', '-', message.split('\n')[0] ?? message)],
    raw: { error: message },
  };
}

/** The client child: the real runner and the Node comparators take turns in it (client-harness-child.ts). */
async function startClientChild(plan: PinningPlan): Promise<PinnedProcess> {
  const client = new PinnedProcess(plan, plan.clientCore, 'client-harness-child.js', [
    '--max-semi-space-size=64',
    '--expose-gc',
  ]);
  // The tokenizer's tables take a second to load: before anything is measured.
  await client.call('warm');
  return client;
}

/**
 * Runs the pinned sections with both children up, and closes them whatever happens. In a full run the
 * streams section gets a client child of its own: its memory per stream is RSS growth, and the RSS other
 * sections left behind (freed but not returned) would hide that growth. --quick (one short round, shown,
 * never judged) saves that child's start and tokenizer: its streams section shares the client child.
 */
async function runPinnedSections(ctx: BenchContext, quick: boolean, skip: ReadonlySet<string>) {
  const plan = pinningPlan();
  ctx.log(plan.note);
  const server = new PinnedProcess(plan, plan.serverCore, 'client-target-child.js');
  const outcomes: Record<string, ClientSectionOutcome> = {};
  let shared: PinnedProcess | null = null;
  try {
    const url = await server.call<string>('url');
    for (const [name, measure] of Object.entries(PINNED_SECTIONS)) {
      if (skip.has(name)) continue;
      const started = performance.now();
      const fresh = name === 'streams' && !quick;
      let client: PinnedProcess | null = null;
      try {
        if (fresh) client = await startClientChild(plan);
        else {
          // A child that died in an earlier section (say, out of memory) is replaced, not reused.
          if (shared !== null && !shared.alive) shared = null;
          shared ??= await startClientChild(plan);
          client = shared;
        }
        outcomes[name] = await measure({ quick, log: ctx.log, plan, server, client, url });
      } catch (error) {
        ctx.log(`${name} failed: ${error instanceof Error ? error.message : String(error)}`);
        outcomes[name] = failedSection(name, error);
      } finally {
        if (fresh) await client?.close();
      }
      ctx.log(`${name}: ${Math.round(performance.now() - started)} ms`);
    }
  } finally {
    await Promise.all([server.close(), shared?.close()]);
  }
  return { plan, outcomes };
}

/** A number for the table: 3 decimals below 100, whole above (the JSON keeps every digit). */
function shown(value: number): string {
  return String(Math.abs(value) >= 100 ? Math.round(value) : round3(value));
}

function row(result: ClientTargetResult): BenchRow {
  const value = (v: number | null): string => (v === null ? 'n/a' : shown(v));
  return {
    section: result.section,
    target: result.target,
    measured: result.measured === null ? 'n/a' : `${shown(result.measured)} ${result.unit}`,
    range: result.range === null ? '-' : `${shown(result.range[0])} to ${shown(result.range[1])}`,
    limit: result.limit,
    comparator: result.comparator === null ? '-' : `${result.comparator} ${value(result.comparatorMeasured)}`,
    ratio: result.ratio === null ? '-' : shown(result.ratio),
    met: result.met === null ? '-' : result.met ? 'yes' : 'NO',
  };
}

async function runClientBench(ctx: BenchContext): Promise<BenchOutcome> {
  const quick = ctx.quick ?? false;
  const skip = new Set(ctx.skip ?? []);
  const loadBefore = loadAverage();
  const { plan, outcomes } = await runPinnedSections(ctx, quick, skip);
  if (!skip.has('accuracy')) {
    try {
      outcomes['accuracy'] = await measureClientAccuracy({ quick, log: ctx.log });
    } catch (error) {
      outcomes['accuracy'] = failedSection('accuracy', error);
    }
  }
  const results = Object.values(outcomes).flatMap((outcome) => outcome.results);
  const loadAfter = loadAverage();
  const notes = [
    plan.note,
    quick
      ? '--quick: one short round of everything, nothing discarded; streams in the shared client child (its RSS per stream includes what earlier sections left)'
      : `${roundCount(false)} rounds, the first discarded; medians and ranges of the rest`,
    `load average (/proc/loadavg) before ${loadBefore}, after ${loadAfter}`,
    ...results.filter((r) => r.note !== undefined).map((r) => `${r.section} / ${r.target}: ${r.note}`),
  ];
  return {
    rows: results.map(row),
    notes,
    json: {
      settings: { quick, rounds: roundCount(quick), skipped: [...skip], pinning: plan },
      loadavg: { before: loadBefore, after: loadAfter },
      results,
      raw: Object.fromEntries(Object.entries(outcomes).map(([name, outcome]) => [name, outcome.raw])),
    },
  };
}

export const clientBenchmark: Benchmark = {
  description:
    'the client under load, pinned away from its server: events, in-process cost, plain HTTP, open loop, open streams, accuracy',
  run: runClientBench,
};
