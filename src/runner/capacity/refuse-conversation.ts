/**
 * `capacity` searches a rate (requests per second) or a number of streams, and reads its numbers as
 * requests; with `session` or `tool_loop` one arrival (or one stream's launch) is a whole conversation of
 * several requests, so the load it would report is not the load it sent.
 */
import { InferbenchError } from '../../errors.js';
import type { ResolvedScenario } from '../../profile/resolved-profile.js';

/** Throws BAD_PROFILE for the first scenario that runs sessions or a tool loop. */
export function refuseConversations(scenarios: readonly ResolvedScenario[]): void {
  const conversational = scenarios.find((s) => s.session !== undefined || s.toolLoop !== undefined);
  if (conversational === undefined) return;
  const what = conversational.session !== undefined ? 'sessions' : 'a tool loop';
  throw new InferbenchError(
    'BAD_PROFILE',
    `capacity cannot search scenario ${conversational.name}: it runs ${what}, and each arrival starts a whole conversation of several requests`,
    {
      hint: 'measure the conversations at given loads with `inferbench run`, or search a scenario without session and tool_loop',
    },
  );
}
