/**
 * What the server showed at a capacity search's knee: its concepts at the last passing step beside the
 * first failing one, as one line ("waiting 0 -> 37, KV cache 61% -> 99%"), so that the binding objective
 * comes with a reason. The rule (docs/capacity.md, "The server at the knee"):
 *
 * - the concepts looked at, in this order, each by one statistic of the step's window: `waiting` (max),
 *   `kv_cache_usage` (max), `preemptions` (per second), `gpu_util` (mean), `running` (max),
 *   `server_queue_time` (p99);
 * - a concept is named when both steps have it and it moved by at least its threshold: 1 request
 *   (waiting, running), 5 points (KV cache, GPU use), 0.01 preemptions/s, or for the queue time 10 ms and
 *   a fifth of its value at the last pass; at most three are named, in the order above;
 * - when none moved that much, the first two both steps have are named after "unchanged: " (the server
 *   did not show the knee: look at the client, the network or a concept not scraped);
 * - null when either step has no server window (not scraped) or they share no concept.
 */
import type { ServerPhaseSummary } from '../../metrics/server-summary.js';

export interface KneeConcept {
  readonly concept: string;
  readonly label: string;
  readonly stat: string;
  /** Its unit once read: requests, a ratio 0..1, per second or ms (a chart's axis). */
  readonly unit: 'requests' | 'ratio' | 'per_s' | 'ms';
  /** The smallest change named, given the value at the last pass. */
  readonly moved: (from: number, to: number) => boolean;
  readonly format: (value: number) => string;
}

const count = (value: number): string => (Number.isInteger(value) ? String(value) : value.toFixed(1));
const percent = (value: number): string => `${Math.round(value * 100)}%`;
const atLeast = (threshold: number) => (from: number, to: number) => Math.abs(to - from) >= threshold - 1e-12;

/** The concepts of the rule, in its order (see the file comment). */
export const KNEE_CONCEPTS: readonly KneeConcept[] = [
  { concept: 'waiting', label: 'waiting', stat: 'max', unit: 'requests', moved: atLeast(1), format: count },
  { concept: 'kv_cache_usage', label: 'KV cache', stat: 'max', unit: 'ratio', moved: atLeast(0.05), format: percent },
  {
    concept: 'preemptions',
    label: 'preemptions',
    stat: 'per_s',
    unit: 'per_s',
    moved: atLeast(0.01),
    format: (v) => `${Number(v.toPrecision(2))}/s`,
  },
  { concept: 'gpu_util', label: 'GPU use', stat: 'mean', unit: 'ratio', moved: atLeast(0.05), format: percent },
  { concept: 'running', label: 'running', stat: 'max', unit: 'requests', moved: atLeast(1), format: count },
  {
    concept: 'server_queue_time',
    label: 'server queue p99',
    stat: 'p99',
    unit: 'ms',
    moved: (from, to) => Math.abs(to - from) >= Math.max(10, 0.2 * from),
    format: (v) => `${Math.round(v)} ms`,
  },
];

/** Most concepts named in one line. */
const MOST_NAMED = 3;
/** Concepts named when none moved. */
const NAMED_UNCHANGED = 2;

function statOf(server: ServerPhaseSummary, concept: KneeConcept): number | null {
  const summary = server.concepts[concept.concept] as Readonly<Record<string, unknown>> | undefined;
  const value = summary?.[concept.stat];
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/** The line for the knee from the last passing step's server window to the first failing one's; null: nothing to say. */
export function serverKnee(lastPass: ServerPhaseSummary | null, firstFail: ServerPhaseSummary | null): string | null {
  if (lastPass === null || firstFail === null) return null;
  const both = KNEE_CONCEPTS.flatMap((concept) => {
    const from = statOf(lastPass, concept);
    const to = statOf(firstFail, concept);
    return from === null || to === null ? [] : [{ concept, from, to }];
  });
  if (both.length === 0) return null;
  const say = (shown: typeof both) =>
    shown
      .map(({ concept, from, to }) => `${concept.label} ${concept.format(from)} -> ${concept.format(to)}`)
      .join(', ');
  const moved = both.filter(({ concept, from, to }) => concept.moved(from, to));
  return moved.length > 0 ? say(moved.slice(0, MOST_NAMED)) : `unchanged: ${say(both.slice(0, NAMED_UNCHANGED))}`;
}

/**
 * The two steps of the knee: the last passing one (the latest at the highest passing load) and the first
 * failing one (the first at the lowest failing load); either undefined when the search has none.
 */
export function kneeSteps<S extends { readonly outcome: string; readonly load: number }>(
  steps: readonly S[],
  lastPass: number | null,
  firstFail: number | null,
): { lastPass: S | undefined; firstFail: S | undefined } {
  return {
    lastPass: steps.filter((step) => step.outcome === 'pass' && step.load === lastPass).at(-1),
    firstFail: steps.find((step) => step.outcome === 'fail' && step.load === firstFail),
  };
}

/** A step's server concepts of the rule, briefly ("waiting 37, KV cache 99%"): the first `most` it has. */
export function serverBrief(server: ServerPhaseSummary | null | undefined, most = 3): string {
  if (server === null || server === undefined) return '';
  return KNEE_CONCEPTS.flatMap((concept) => {
    const value = statOf(server, concept);
    return value === null ? [] : [`${concept.label} ${concept.format(value)}`];
  })
    .slice(0, most)
    .join(', ');
}

/** The value of one concept of the rule in a step's window (its statistic), or null. */
export function kneeValue(server: ServerPhaseSummary | null | undefined, concept: KneeConcept): number | null {
  return server === null || server === undefined ? null : statOf(server, concept);
}
