/**
 * The problems a profile text is refused with: each line of its BAD_PROFILE error after the first
 * ("<file>: N problems"), trimmed. Fails the test when the text loads, or fails otherwise.
 */
import { isInferbenchError } from '../../src/errors.js';
import { resolveProfileText } from '../../src/profile/load-profile.js';

export function profileProblems(text: string, baseDir = '.', name = 'p.yaml'): string[] {
  try {
    resolveProfileText(text, name, [], baseDir);
  } catch (error) {
    if (!isInferbenchError(error) || error.code !== 'BAD_PROFILE') throw error;
    return error.message
      .split('\n')
      .slice(1)
      .map((line) => line.trim());
  }
  throw new Error('expected a BAD_PROFILE error');
}
