/**
 * The layers the runner composes, as one object of factories. The defaults are the real modules; the
 * accuracy benchmark and tests use the same defaults, and a caller may swap one (say, a client with an
 * extra interceptor) without the runner knowing.
 */
import type { ClientOptions, InferenceClient } from '../client/types.js';
import type { CollectorOptions, RunCollector } from '../aggregate/types.js';
import type {
  ResolvedGroup,
  ResolvedProfile,
  ResolvedScenario,
  ThresholdSpec,
  LoadSpec,
} from '../profile/resolved-profile.js';
import type { GroupSummary, ThresholdResult } from '../metrics/run-summary.js';
import type { ScheduleCallbacks, ScheduleDeps, ScheduleLimits, ScheduleRun } from '../schedule/types.js';
import type { EncodingTokenizer } from '../util/tokenizer.js';
import { createInferenceClient } from '../client/inference-client.js';
import { createRunCollector } from '../aggregate/run-collector.js';
import { evaluateThresholds } from '../aggregate/thresholds.js';
import { startSchedule } from '../schedule/start-schedule.js';
import { createWorkload } from '../workload/create-workload.js';
import { resolveGroupModels } from '../profile/groups.js';
import { workloadHash } from '../workload/workload-hash.js';
import type { ConversationFactory } from '../workload/conversation.js';
import { type CpuProbe, type HarnessMonitor, startHarnessMonitor } from './harness-monitor.js';
import type { RecordFinishing } from './record-finisher.js';

/** What the workload gives the runner for one request. */
export interface WorkloadRequest {
  readonly body: Readonly<Record<string, unknown>>;
  /** With another API than chat: the chat body `body` was made from, whose tools answers are checked against. */
  readonly chatBody?: Readonly<Record<string, unknown>>;
  readonly expectedInputTokens: number;
  /** Copied into the record (RequestRecord.labels) for the breakdowns. */
  readonly labels?: Readonly<Record<string, string>>;
  /** Prompts in the body (api: embeddings), copied into the record (RequestRecord.inputs). */
  readonly inputs?: number;
}

export interface Workload {
  next(index: number): WorkloadRequest;
  /** With `session` or `tool_loop`: conversation `index` (workload/conversation.ts), run by runner/conversation.ts. */
  readonly conversation?: ConversationFactory;
}

export interface RunnerDeps {
  createClient(options: ClientOptions): InferenceClient;
  createCollector(options: CollectorOptions): RunCollector;
  startSchedule(load: LoadSpec, limits: ScheduleLimits, callbacks: ScheduleCallbacks, deps: ScheduleDeps): ScheduleRun;
  /** A group's workload, its prompts sized and counted in the run's tokenizer. */
  createWorkload(scenario: ResolvedScenario, group: ResolvedGroup, tokenizer: EncodingTokenizer): Workload;
  resolveGroupModels(profile: ResolvedProfile, firstModel: string): ResolvedProfile;
  workloadHash(profile: ResolvedProfile): string;
  evaluateThresholds(specs: readonly ThresholdSpec[], groups: readonly GroupSummary[]): ThresholdResult[];
  /**
   * The harness's own health over a run (harness-monitor.ts: the real event loop's delay and CPU use). A
   * run in virtual time gives one of its own: the real event loop's delay says nothing of a manual clock.
   */
  startHarnessMonitor(cpuProbe: CpuProbe | null): HarnessMonitor;
  /** How ended records are finished (record-finisher.ts): `sliced`; a run in virtual time, `next-turn`. */
  readonly recordFinishing: RecordFinishing;
}

export const defaultRunnerDeps: RunnerDeps = {
  createClient: createInferenceClient,
  createCollector: createRunCollector,
  startSchedule,
  createWorkload,
  resolveGroupModels,
  workloadHash,
  evaluateThresholds: (specs, groups) => evaluateThresholds([...specs], [...groups]),
  startHarnessMonitor,
  recordFinishing: 'sliced',
};
