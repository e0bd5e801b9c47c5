/** `inferbench run`: PLACEHOLDER until its issue lands (replace this whole file). */
import type { CommandRegistration } from './command.js';

export const runCommand: CommandRegistration = (parser) => parser;
