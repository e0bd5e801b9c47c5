/**
 * `inferbench validate <profile>`: loads the profile exactly as `run` would (overrides included), builds
 * the first request of every group with the run's tokenizer (so a bad dataset or tokenizer.json fails
 * here too), and prints the plan it expands to.
 * Sends nothing. A bad profile exits 2 with every problem listed (the error comes from profile/).
 */
import { isAbsolute, resolve } from 'node:path';
import type { Argv } from 'yargs';
import { describeDecidability } from '../../aggregate/decided-stop.js';
import { loadProfile } from '../../profile/load-profile.js';
import { formatProfilePlan } from '../../profile/format-plan.js';
import { bodyShape } from '../../workload/apis/api-bodies.js';
import { hasUnresolvedSelector } from '../../profile/sections/models.js';
import { recordedProfile } from '../../profile/sections/trace/trace.js';
import type { ResolvedProfile } from '../../profile/resolved-profile.js';
import { loadHfTokenizer } from '../../util/hf-tokenizer.js';
import { o200kTokenizer } from '../../util/tokenizer.js';
import type { EncodingTokenizer } from '../../util/tokenizer.js';
import { createWorkload } from '../../workload/create-workload.js';
import { describeDatasetCounts } from '../../workload/dataset/dataset-source.js';
import type { DatasetCounts } from '../../workload/dataset/dataset-source.js';
import { workloadHash } from '../../workload/workload-hash.js';
import type { CliContext } from '../context.js';
import { EXIT } from '../exit-codes.js';
import type { CommandImplementation } from './command.js';

interface ValidateArgs {
  profile: string;
  set?: string[];
  'server-metrics'?: string[];
  json: boolean;
}

export const validateCommand: CommandImplementation = (ctx) => ({
  builder: (command: Argv) =>
    command
      .positional('profile', { type: 'string', describe: 'Profile YAML file', demandOption: true })
      .option('set', {
        type: 'string',
        array: true,
        describe: 'Override a profile field: --set path=value (repeatable)',
      })
      .option('server-metrics', {
        type: 'string',
        array: true,
        describe: "Add the target's Prometheus endpoint at URL to target.server_metrics, as run does (repeatable)",
      })
      .option('json', { type: 'boolean', default: false, describe: 'Print the resolved profile as JSON' }),
  handler: async (argv) => {
    ctx.exitCode = await runValidate(argv as unknown as ValidateArgs, ctx);
  },
});

async function runValidate(args: ValidateArgs, ctx: CliContext): Promise<number> {
  const path = isAbsolute(args.profile) ? args.profile : resolve(ctx.cwd, args.profile);
  const profile = loadProfile(path, { overrides: args.set ?? [], serverMetrics: args['server-metrics'] ?? [] });
  // The tokenizer `run` would size prompts with (the same loader: a bad file is the same exit 2).
  const tokenizer = profile.target.tokenizer ? await loadHfTokenizer(profile.target.tokenizer) : o200kTokenizer();
  const firstRequests = buildFirstRequests(profile, tokenizer);
  const hash = workloadHash(profile);
  if (args.json) {
    ctx.stdout.write(
      `${JSON.stringify({ valid: true, workload_hash: hash, profile: recordedProfile(profile), first_requests: firstRequests }, null, 2)}\n`,
    );
    return EXIT.ok;
  }
  ctx.stdout.write(formatProfilePlan(profile, bodyShape));
  ctx.stdout.write(`workload hash: ${hash}\n`);
  if (profile.stopWhenDecided === true) ctx.stdout.write(`${describeDecidability(profile).join('\n')}\n`);
  const datasets = firstRequests.flatMap((r) =>
    r.dataset ? [`${r.dataset.path}: ${describeDatasetCounts(r.dataset)}`] : [],
  );
  for (const line of new Set(datasets)) ctx.stdout.write(`dataset ${line}\n`);
  const groups = profile.groups.length;
  const scenarios = profile.scenarios.length;
  // A selector's groups are known only when the run asks the target.
  const selectors = hasUnresolvedSelector(profile);
  ctx.stdout.write(
    `\nvalid: ${scenarios} scenario${scenarios === 1 ? '' : 's'}, ${groups} group${groups === 1 ? '' : 's'}${selectors ? ' before the models: selectors resolve at run time' : ''}; nothing was sent\n`,
  );
  return EXIT.ok;
}

/** Request 0 of every group, summarised; building it proves datasets and prompts are usable. */
function buildFirstRequests(
  profile: ResolvedProfile,
  tokenizer: EncodingTokenizer,
): { group: string; input_tokens: number; max_completion_tokens: unknown; dataset?: DatasetCounts }[] {
  return profile.groups.map((group) => {
    const scenario = profile.scenarios.find((s) => s.name === group.scenario)!;
    // A scenario without models runs on the target's first model; any name builds the same prompt shape.
    const workload = createWorkload(
      scenario,
      group.model === null ? { ...group, model: '(first model of the target)' } : group,
      tokenizer,
    );
    const plan = workload.next(0);
    return {
      group: group.key,
      input_tokens: plan.expectedInputTokens,
      // The chat body's: another API sends it under its own name (max_tokens, max_output_tokens).
      max_completion_tokens: (plan.chatBody ?? plan.body).max_completion_tokens ?? null,
      // What a dataset read, kept and dropped (dataset-source.ts).
      ...(workload.dataset ? { dataset: workload.dataset } : {}),
    };
  });
}
