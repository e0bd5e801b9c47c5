/**
 * A sweep measures its rates in completed requests per second and runs its rate phases at them, while with
 * `session` or `tool_loop` one arrival starts a whole conversation: such a sweep is a profile error naming
 * the file, line and field, before anything is sent.
 */
import { describe, expect, it } from 'vitest';
import { profileProblems } from '../../helpers/profile-problems.js';

describe('a sweep of conversations', () => {
  it('is refused with session, naming the line and field', () => {
    expect(
      profileProblems(`scenarios:
  - name: chat
    duration: 1s
    load: { mode: sweep, steps: 2 }
    session: { turns: 3 }
`),
    ).toEqual([
      'p.yaml:5:5: scenarios[0].session: a sweep cannot run sessions: its rates are requests per second, but each arrival starts a whole conversation of several requests; sweep the scenario without session, or run the conversations at given loads',
    ]);
  });

  it('is refused with tool_loop, also when the sweep comes from defaults', () => {
    expect(
      profileProblems(`defaults:
  load: { mode: sweep }
scenarios:
  - name: agent
    duration: 1s
    request: { tools: [{ type: function, function: { name: f, parameters: { type: object } } }] }
    tool_loop: { max_rounds: 2 }
`),
    ).toEqual([
      'p.yaml:7:5: scenarios[0].tool_loop: a sweep cannot run a tool loop: its rates are requests per second, but each arrival starts a whole conversation of several requests; sweep the scenario without tool_loop, or run the conversations at given loads',
    ]);
  });
});
