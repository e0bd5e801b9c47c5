/**
 * Every command of the CLI, in the order `--help` lists them: its yargs name, its one-line description and
 * how to load its implementation. A command's module (and all it imports: the runner, the emulator, the
 * tokenizer) is imported only when the command line names it, so `inferbench --help`, `--version` and
 * each command start with only what they use.
 */
import type { CommandImplementation } from './command.js';

export interface CommandEntry {
  /** The yargs command string: the name, then its positionals. */
  readonly command: string;
  readonly describe: string;
  readonly load: () => Promise<CommandImplementation>;
}

export const COMMANDS: readonly CommandEntry[] = [
  {
    command: 'run <profile>',
    describe: 'Run a profile against a target (default: the embedded emulator) and write reports/<run-id>/',
    load: async () => (await import('./run.js')).runCommand,
  },
  {
    command: 'capacity [profile]',
    describe: 'Find the highest load each group takes under the SLO (capacity.slo), with a 95% interval',
    load: async () => (await import('./capacity.js')).capacityCommand,
  },
  {
    command: 'validate <profile>',
    describe: 'Check a profile and print the plan it expands to, sending nothing (exit 2 listing every problem)',
    load: async () => (await import('./validate.js')).validateCommand,
  },
  {
    command: 'serve',
    describe: 'Run the offline emulator of the inference API; prints its base URL on the first line',
    load: async () => (await import('./serve.js')).serveCommand,
  },
  {
    command: 'catalog',
    describe: "Print a public model catalog (JSON): the emulator's, or a service's with --base-url",
    load: async () => (await import('./catalog.js')).catalogCommand,
  },
  {
    command: 'report <run-dir>',
    describe: 'Rebuild report.html, summary.csv and timeseries.csv of a run from its saved results',
    load: async () => (await import('./report.js')).reportCommand,
  },
  {
    command: 'compare <baseline> <candidate>',
    describe:
      'Compare two runs: per group and metric the change, its significance and a verdict (exit 99 on a regression)',
    load: async () => (await import('./compare.js')).compareCommand,
  },
  {
    command: 'trend <runs..>',
    describe:
      'Many runs in order (commits, CI artifacts): every compared metric over them, the compare verdict between neighbours and the change points, in trend.html and trend.csv',
    load: async () => (await import('./trend.js')).trendCommand,
  },
  {
    command: 'merge <dirs..>',
    describe:
      'Merge the results of the shards of one run (run --shard i/N) into one run folder, exactly (histograms add)',
    load: async () => (await import('./merge.js')).mergeCommand,
  },
  {
    command: 'k8s <profile>',
    describe: 'Print a Kubernetes Indexed Job (and a ConfigMap with the profile) that runs the profile in N shards',
    load: async () => (await import('./k8s.js')).k8sCommand,
  },
];

/** The command's name: the first word of its yargs command string. */
export function commandName(entry: CommandEntry): string {
  return entry.command.split(' ', 1)[0] ?? entry.command;
}

/**
 * The commands whose implementation a command line needs: every one it names anywhere (yargs finds the
 * command among the positionals; a completion request names it after `--get-yargs-completions`; loading one
 * more than needed only costs time, never behaviour).
 */
export function commandsNamedBy(argv: readonly string[]): ReadonlySet<CommandEntry> {
  const words = new Set(argv);
  return new Set(COMMANDS.filter((entry) => words.has(commandName(entry))));
}
