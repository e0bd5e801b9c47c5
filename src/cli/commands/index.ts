/** Every command of the CLI, in the order `--help` lists them. */
import type { CommandRegistration } from './command.js';
import { runCommand } from './run.js';
import { serveCommand } from './serve.js';
import { reportCommand } from './report.js';
import { compareCommand } from './compare.js';
import { mergeCommand } from './merge.js';
import { validateCommand } from './validate.js';
import { catalogCommand } from './catalog.js';
import { k8sCommand } from './k8s.js';
import { capacityCommand } from './capacity.js';

export const COMMANDS: readonly CommandRegistration[] = [
  runCommand,
  capacityCommand,
  validateCommand,
  serveCommand,
  catalogCommand,
  reportCommand,
  compareCommand,
  mergeCommand,
  k8sCommand,
];
