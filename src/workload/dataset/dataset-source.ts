/**
 * The dataset prompt source: the file's entries as requests send them (the profile's shared prefix at the
 * start of the first user message, its system prompt first unless the entry has one), filtered by token
 * length, limited, and sampled in a seeded order. Everything is computed when the workload is built; a
 * request only picks an entry and copies its message list.
 *
 * Supply: `without_replacement` refuses, at build, a scenario whose `requests` (plus warmup_requests) ask
 * more than the entries left; a duration-bound run that uses them all goes on in the same order again and
 * says so in summary.json harness.warnings (warnings()).
 */
import { API_REQUESTS } from '../apis/api-bodies.js';
import { InferbenchError } from '../../errors.js';
import type { ChatMessage } from '../../protocol/chat.js';
import type { DatasetSpec, ResolvedScenario } from '../../profile/resolved-profile.js';
import type { Tokenizer } from '../../util/tokenizer.js';
import type { DatasetFormat } from './dataset.js';
import { loadDataset } from './dataset.js';
import type { DatasetEntry } from './dataset-entry.js';
import { messageTokens } from './dataset-entry.js';
import type { FilterCounts } from './dataset-filter.js';
import { describeFiltered, filterEntries } from './dataset-filter.js';
import { createSampler } from './dataset-sampling.js';
import type { BuiltPrompt } from '../prompt-sources.js';
import { laterUserTurns } from '../session-turns.js';
import type { UserTurn } from '../session-turns.js';

/** What a dataset source read, kept and dropped (validate prints it). */
export interface DatasetCounts extends FilterCounts {
  readonly path: string;
  readonly format: DatasetFormat;
  readonly sample: DatasetSpec['sample'];
  /** The filtered and limited counts for people: "3 with no user turn, 2 by max_input_tokens (> 300)", or "none". */
  readonly dropped: string;
}

/** One line for people: "sharegpt, 40 read, 35 kept (dropped: 5 by max_input_tokens (> 300)), sample cycle". */
export function describeDatasetCounts(counts: DatasetCounts): string {
  return `${counts.format}, ${counts.read} read, ${counts.kept} kept (dropped: ${counts.dropped}), sample ${counts.sample}`;
}

export interface DatasetSource {
  build(index: number): BuiltPrompt;
  readonly counts: DatasetCounts;
  /** `session:` the user turns of entry `index`'s conversation after its prompt's (session-turns.ts). */
  laterTurns(index: number): readonly UserTurn[];
  /** Warnings for summary.json harness.warnings, read when the run ends (none unless the supply ran out). */
  warnings(): string[];
}

/** What the scenario adds to every prompt: its shared prefix text and its system message. */
export interface PromptAdditions {
  readonly prefix: string;
  readonly system: { readonly message: ChatMessage | null; readonly tokens: number };
}

export function createDatasetSource(
  scenario: ResolvedScenario,
  tokenizer: Tokenizer,
  additions: PromptAdditions,
): DatasetSource {
  const spec = scenario.prompt.dataset!;
  const dataset = loadDataset(spec, tokenizer);
  const { kept, counts: filterCounts } = filterEntries(
    dataset.entries,
    (entry) => withAdditions(entry, additions, tokenizer),
    spec,
  );
  const counts: DatasetCounts = {
    path: spec.path,
    format: dataset.format,
    sample: spec.sample,
    ...filterCounts,
    dropped: describeFiltered(filterCounts, spec),
  };
  if (kept.length === 0)
    throw new InferbenchError(
      'BAD_PROFILE',
      `dataset ${spec.path}: no entries left after filtering (${counts.read} read as ${counts.format}; dropped ${counts.dropped})`,
      { hint: 'loosen prompt.dataset.min_*/max_* (the input bounds count the prompt as sent, system prompt included)' },
    );
  checkSupply(scenario, counts, spec);
  checkApiPrompts(scenario, kept, spec.path);
  const pick = createSampler(spec.sample, kept.length, scenario.seed, scenario.name);
  // Sessions only: each entry's later user turns, counted once here.
  const answers = spec.outputTokens === 'dataset';
  const later = scenario.session ? kept.map((entry) => laterUserTurns(entry, tokenizer, answers)) : null;
  const exhaustible = spec.sample === 'without_replacement';
  let exhaustedAt = -1;
  return {
    counts,
    laterTurns: (index) => later?.[pick(index)] ?? [],
    build(index) {
      if (exhaustible && index >= kept.length && (exhaustedAt < 0 || index < exhaustedAt)) exhaustedAt = index;
      const entry = kept[pick(index)]!;
      const prompt = { messages: [...entry.prompt], expectedInputTokens: entry.tokens };
      return answers ? { ...prompt, outputTokens: entry.answerTokens as number } : prompt;
    },
    warnings() {
      return exhaustedAt < 0
        ? []
        : [
            `scenario ${scenario.name}: prompt.dataset (sample: without_replacement) ran out of its ${kept.length} entries at request ${exhaustedAt + 1}; later requests reused them in the same seeded order`,
          ];
    },
  };
}

/** The entry as a request sends it, its tokens counted whole where the prefix joins the first user message. */
function withAdditions(entry: DatasetEntry, additions: PromptAdditions, tokenizer: Tokenizer): DatasetEntry {
  const { prefix, system } = additions;
  if (entry.prompt.length === 0 || (!prefix && !system.message)) return entry;
  const prompt = [...entry.prompt];
  let tokens = entry.tokens;
  if (prefix) {
    const first = prompt.findIndex((m) => m.role === 'user' && typeof m.content === 'string');
    if (first >= 0) {
      const original = prompt[first]!;
      const withPrefix = { ...original, content: `${prefix}\n\n${original.content as string}` } as ChatMessage;
      tokens += messageTokens(withPrefix, tokenizer) - messageTokens(original, tokenizer);
      prompt[first] = withPrefix;
    }
  }
  if (system.message && !prompt.some((m) => m.role === 'system' || m.role === 'developer')) {
    prompt.unshift(system.message);
    tokens += system.tokens;
  }
  const { messages, line } = entry;
  // The answer is counted only when a filter or max_completion_tokens reads it.
  return {
    messages,
    prompt,
    line,
    tokens,
    get answerTokens() {
      return entry.answerTokens;
    },
  };
}

/** api: every entry kept must be a prompt the scenario's API can send (apis/api-bodies.ts), else its line is named. */
function checkApiPrompts(scenario: ResolvedScenario, kept: readonly DatasetEntry[], path: string): void {
  const api = scenario.api ?? 'chat';
  const problem = API_REQUESTS[api].promptProblem;
  if (problem === null) return;
  for (const entry of kept) {
    const why = problem(entry.prompt);
    if (why !== null)
      throw new InferbenchError('BAD_PROFILE', `${path}:${entry.line}: api: ${api} cannot send this entry: ${why}`, {
        hint: `use a dataset whose entries api: ${api} can send, filter them out, or use api: chat`,
      });
  }
}

/** without_replacement: a `requests` count the entries cannot serve is an error before anything is sent. */
function checkSupply(scenario: ResolvedScenario, counts: DatasetCounts, spec: DatasetSpec): void {
  if (spec.sample !== 'without_replacement' || scenario.requests === null) return;
  // inputs_per_request (api: embeddings): each request takes that many entries.
  const inputs = scenario.inputsPerRequest ?? 1;
  const asked = (scenario.requests + scenario.warmupRequests) * inputs;
  if (asked <= counts.kept) return;
  const warmup = scenario.warmupRequests > 0 ? ` (${scenario.warmupRequests * inputs} of them warmup)` : '';
  const prompts = inputs > 1 ? ` prompts (${inputs} inputs per request)` : ' requests';
  throw new InferbenchError(
    'BAD_PROFILE',
    `scenario ${scenario.name}: ${asked}${prompts}${warmup} with prompt.dataset.sample: without_replacement, but dataset ${spec.path} has only ${counts.kept} entries left (${counts.read} read; dropped ${counts.dropped})`,
    { hint: 'lower requests, loosen the filters or the limit, or use sample: cycle or with_replacement' },
  );
}
