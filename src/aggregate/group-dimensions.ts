/**
 * summary.json's `class` and `reasoning_effort` of a group: present only when the group has them, so the
 * summaries of profiles without a mix or efforts stay what they were.
 */
import type { GroupSummary } from '../metrics/run-summary.js';

export function groupDimensions(
  mixClass: string | null,
  effort: string | null,
): Pick<GroupSummary, 'class' | 'reasoning_effort'> {
  return {
    ...(mixClass === null ? {} : { class: mixClass }),
    ...(effort === null ? {} : { reasoning_effort: effort }),
  };
}
