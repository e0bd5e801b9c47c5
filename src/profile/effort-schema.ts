/**
 * `reasoning_efforts: [low, medium, high]`: the spec's reasoning_effort values, a matrix dimension like
 * tiers. A value the spec does not have is an error naming the closest one.
 */
import { z } from 'zod';
import { REASONING_EFFORTS } from '../protocol/chat.js';
import { editDistance } from './key-suggestions.js';

/** The error for a value that is not one of the spec's efforts, with the closest one when it is close. */
export function unknownEffortMessage(value: unknown): string {
  const text = String(value);
  const best = [...REASONING_EFFORTS].sort(
    (a, b) => editDistance(text.toLowerCase(), a) - editDistance(text.toLowerCase(), b),
  )[0]!;
  // Within two edits: a swapped pair of letters (hihg) is two.
  const close = editDistance(text.toLowerCase(), best) <= 2;
  return `"${text}" is not a reasoning_effort${close ? ` (did you mean "${best}"?)` : ''}; expected one of ${REASONING_EFFORTS.join(', ')}`;
}

export const reasoningEffortsSchema = z
  .array(z.enum(REASONING_EFFORTS, { error: (issue) => unknownEffortMessage(issue.input) }))
  .min(1)
  .meta({
    description:
      'One group per model x tier x effort, each sending its reasoning_effort (low, medium, high, none; which a model takes depends on the model). Omitted: none sent.',
  });
