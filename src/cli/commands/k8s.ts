/**
 * `inferbench k8s <profile> --shards N --image IMAGE`: loads and validates the profile as `validate` does
 * (overrides included; a bad profile exits 2), then prints a ConfigMap with the profile file and an
 * Indexed Job that runs it in N shards (cli/k8s-job.ts), with the commands to run it and merge the
 * results. Sends nothing and talks to no cluster; the API key is never read, only named.
 */
import { readFileSync } from 'node:fs';
import { basename, isAbsolute, resolve } from 'node:path';
import type { Argv } from 'yargs';
import { InferbenchError } from '../../errors.js';
import { loadProfile } from '../../profile/load-profile.js';
import type { ResolvedProfile } from '../../profile/resolved-profile.js';
import { formatModelSelector } from '../../profile/sections/models.js';
import { parseDurationMs } from '../../util/duration.js';
import type { CliContext } from '../context.js';
import { EXIT } from '../exit-codes.js';
import { formatK8sManifests } from '../k8s-job.js';
import type { K8sJobOptions } from '../k8s-job.js';
import type { CommandImplementation } from './command.js';
import { checkBaseUrl } from '../target-session.js';
import { parseStartAt } from './run.js';

interface K8sArgs {
  profile: string;
  shards: number;
  image: string;
  'start-at'?: string;
  set?: string | string[];
  'base-url'?: string;
  'api-key-env'?: string;
  secret: string;
  'results-pvc'?: string;
  name?: string;
  cpu: string;
  memory: string;
  linger: string;
}

/** How long after printing the shards start by default: time for N pods to be scheduled and pull the image. */
const DEFAULT_START_DELAY_MS = 2 * 60_000;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const QUANTITY = /^(\d+(\.\d+)?|\.\d+)(m|k|M|G|T|Ki|Mi|Gi|Ti)?$/;
/** Job names longer than this make pod hostnames (`<job>-<index>`) and labels too long. */
const MAX_NAME = 52;

export const k8sCommand: CommandImplementation = (ctx) => ({
  builder: (command: Argv) =>
    command
      .positional('profile', { type: 'string', describe: 'Profile YAML file', demandOption: true })
      .option('shards', { type: 'number', describe: 'Number of shards: one pod each', demandOption: true })
      .option('image', { type: 'string', describe: 'Image with inferbench (the Dockerfile)', demandOption: true })
      .option('start-at', {
        type: 'string',
        describe: 'When every shard starts (ISO 8601 with a zone; default: 2 minutes after printing)',
      })
      // Not `array: true`, as for run: repeated flags still arrive as an array.
      .option('set', { type: 'string', describe: 'Override a profile field: --set path=value (repeatable)' })
      .option('base-url', { type: 'string', describe: 'Target base URL, passed on to every shard' })
      .option('api-key-env', {
        type: 'string',
        describe: 'Variable the shards read the key from (default: target.api_key_env, else INFERENCE_API_KEY)',
      })
      .option('secret', {
        type: 'string',
        default: 'inferbench-api-key',
        describe: 'Secret holding the API key under the key api-key',
      })
      .option('results-pvc', {
        type: 'string',
        describe: 'PersistentVolumeClaim for /results (default: an emptyDir per pod)',
      })
      .option('name', { type: 'string', describe: 'Job name (default: inferbench-<profile name>)' })
      .option('cpu', { type: 'string', default: '1', describe: 'CPU request of each pod' })
      .option('memory', { type: 'string', default: '1Gi', describe: 'Memory request of each pod' })
      .option('linger', {
        type: 'string',
        default: '10m',
        describe: 'How long a pod stays up after its shard ended, for kubectl cp',
      }),
  handler: (argv) => {
    ctx.exitCode = runK8s(argv as unknown as K8sArgs, ctx);
  },
});

function runK8s(args: K8sArgs, ctx: CliContext): number {
  const flags = checkFlags(args);
  const startAtMs =
    args['start-at'] === undefined ? Date.now() + DEFAULT_START_DELAY_MS : parseStartAt(args['start-at']);
  if (startAtMs < Date.now())
    ctx.stderr.write(`inferbench: warning: --start-at ${args['start-at']} is in the past; the shards start at once\n`);
  if (args['base-url'] !== undefined) checkBaseUrl(args['base-url']);
  const path = isAbsolute(args.profile) ? args.profile : resolve(ctx.cwd, args.profile);
  const overrides = args.set === undefined ? [] : Array.isArray(args.set) ? args.set : [args.set];
  const profile = loadProfile(path, { overrides });
  const profileFile = basename(path).replace(/[^-._a-zA-Z0-9]/g, '-');
  const embedded = args['base-url'] === undefined && profile.target.baseUrl === null;
  const options: K8sJobOptions = {
    ...flags,
    name: args.name ?? defaultName(profile.name),
    profileFile,
    profileText: readFileSync(path, 'utf8'),
    startAt: new Date(Math.ceil(startAtMs / 1000) * 1000).toISOString().replace('.000Z', 'Z'),
    baseUrl: args['base-url'] ?? null,
    needsApiKey: !embedded,
    apiKeyEnv: args['api-key-env'] ?? profile.target.apiKeyEnv,
    apiKeyEnvFlag: args['api-key-env'] ?? null,
    overrides,
    metricsPort: profile.live?.metricsPort ?? null,
  };
  if (!DNS_LABEL.test(options.name) || options.name.length > MAX_NAME)
    throw new InferbenchError('BAD_USAGE', `--name ${JSON.stringify(options.name)} is not a usable Job name`, {
      hint: `lowercase letters, digits and "-", at most ${MAX_NAME} characters, e.g. --name inferbench-steady`,
    });
  if (embedded)
    ctx.stderr.write(
      'inferbench: warning: the profile has no target and no --base-url was given: every pod runs its own embedded emulator (a try-out, not a load test of one server)\n',
    );
  checkModelSelectors(profile, embedded, ctx);
  if (options.metricsPort === 0)
    ctx.stderr.write(
      'inferbench: warning: live.metrics_port is 0 (any free port): Prometheus cannot find it in the pods; set a fixed port (e.g. 9464) to have each shard scraped\n',
    );
  for (const file of filesOutsideConfigMap(profile, embedded))
    ctx.stderr.write(
      `inferbench: warning: the profile reads ${file}, which the pods do not have (only the profile file is in the ConfigMap): put it in the image at that path\n`,
    );
  // The API server refuses a ConfigMap over 1 MiB.
  if (Buffer.byteLength(options.profileText) > 1_000_000)
    throw new InferbenchError('BAD_USAGE', `${path} is too large for a ConfigMap (1 MiB)`, {
      hint: 'move large inline data (a dataset) into a file in the image',
    });
  ctx.stdout.write(formatK8sManifests(options));
  return EXIT.ok;
}

type CheckedFlags = Pick<
  K8sJobOptions,
  'shards' | 'image' | 'secretName' | 'resultsPvc' | 'cpu' | 'memory' | 'lingerSeconds'
>;

/** Every flag that needs no profile, checked first: a typo exits 2 before anything is printed. */
function checkFlags(args: K8sArgs): CheckedFlags {
  const bad = (flag: string, hint: string): InferbenchError =>
    new InferbenchError('BAD_USAGE', `${flag} is not valid`, { hint });
  if (!Number.isInteger(args.shards) || args.shards < 1 || args.shards > 1000)
    throw bad(`--shards ${args.shards}`, 'give a whole number of shards from 1 to 1000, e.g. --shards 4');
  if (args.image.trim() === '') throw bad('--image ""', 'give the image built from the Dockerfile');
  if (!DNS_LABEL.test(args.secret)) throw bad(`--secret ${args.secret}`, 'give the name of a Secret');
  const pvc = args['results-pvc'] ?? null;
  if (pvc !== null && !DNS_LABEL.test(pvc)) throw bad(`--results-pvc ${pvc}`, 'give the name of a claim');
  for (const [flag, value] of [
    ['--cpu', args.cpu],
    ['--memory', args.memory],
  ] as const)
    if (!QUANTITY.test(value))
      throw bad(`${flag} ${value}`, 'give a Kubernetes quantity, e.g. --cpu 1 or --memory 1Gi');
  const lingerMs = parseDurationMs(args.linger);
  if (lingerMs === undefined) throw bad(`--linger ${args.linger}`, 'give a duration, e.g. --linger 10m (0: none)');
  return {
    shards: args.shards,
    image: args.image,
    secretName: args.secret,
    resultsPvc: pvc,
    cpu: args.cpu,
    memory: args.memory,
    lingerSeconds: Math.ceil(lingerMs / 1000),
  };
}

/**
 * Each shard resolves the profile's `models:` selectors itself when it starts (sorted by id, so shards that
 * see the same models make the same groups). The pods carry only the API key: `endpoints_of` against a
 * real target is refused (exit 2) rather than failing in every pod.
 */
function checkModelSelectors(profile: ResolvedProfile, embedded: boolean, ctx: CliContext): void {
  const selectors = profile.scenarios.flatMap((s) => (s.modelSelector === undefined ? [] : [s.modelSelector]));
  if (selectors.length === 0) return;
  const managed = selectors.find((selector) => selector.kind === 'endpoints_of');
  if (managed !== undefined && !embedded)
    throw new InferbenchError(
      'BAD_USAGE',
      `models: ${formatModelSelector(managed)} needs the management key in every pod, and the Job carries only the API key`,
      {
        hint: 'list the endpoint ids in the profile (models: [ep-...]); `inferbench run` resolves endpoints_of itself',
      },
    );
  ctx.stderr.write(
    `inferbench: note: each shard resolves models: ${[...new Set(selectors.map(formatModelSelector))].join(', ')} from the target when it starts (sorted by id: the same groups while the target serves the same models)\n`,
  );
}

/** `inferbench-<profile name>` as a DNS label. */
function defaultName(profileName: string): string {
  const slug = profileName
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return `inferbench-${slug}`.slice(0, MAX_NAME).replace(/-+$/, '');
}

/** Files the profile reads besides itself: a pod has only the profile file (and what its image holds). */
function filesOutsideConfigMap(profile: ResolvedProfile, embedded: boolean): string[] {
  const tls = profile.target.tls;
  return [
    ...profile.scenarios.flatMap((scenario) => (scenario.prompt.dataset ? [scenario.prompt.dataset.path] : [])),
    profile.target.tokenizer,
    embedded ? profile.target.emulatorConfig : null,
    tls?.caPath ?? null,
    tls?.certPath ?? null,
    tls?.keyPath ?? null,
  ].filter((file): file is string => file !== null);
}
