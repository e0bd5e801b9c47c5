/** `inferbench compare`: PLACEHOLDER until its issue lands (replace this whole file). */
import type { CommandRegistration } from './command.js';

export const compareCommand: CommandRegistration = (parser) => parser;
