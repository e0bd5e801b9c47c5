/**
 * The `session:` and `tool_loop:` keys of a scenario, as written: multi-request conversations. A session
 * is several user turns, each sent with the conversation so far (the server's real answers included) after
 * a think time; a tool loop answers the model's tool calls with synthetic tool results and asks again.
 * Built from the profile schema's own duration and token-length schemas (passed in, so this file never
 * imports profile-schema.ts); resolved in resolve-session.ts.
 */
import { z } from 'zod';

const THINK_TIME_MESSAGE =
  'expected a duration ("2s") or { dist: fixed, value } | { dist: uniform, min, max } | { dist: exponential, mean, max? } | { dist: lognormal, mean, stddev, max? } with durations';

/** A think time: a duration (fixed) or a seeded distribution of durations. */
function thinkTimeSchema<D extends z.ZodType>(duration: D) {
  return z
    .union(
      [
        duration,
        z.discriminatedUnion('dist', [
          z.strictObject({ dist: z.literal('fixed'), value: duration }),
          z.strictObject({ dist: z.literal('uniform'), min: duration, max: duration }),
          z.strictObject({ dist: z.literal('exponential'), mean: duration, max: duration.optional() }),
          z.strictObject({
            dist: z.literal('lognormal'),
            mean: duration,
            stddev: duration,
            max: duration.optional(),
          }),
        ]),
      ],
      { error: THINK_TIME_MESSAGE },
    )
    .meta({
      id: 'thinkTime',
      description:
        'Wait between a session\'s answer and its next user turn: a duration ("2s") or { dist: fixed, value } | { dist: uniform, min, max } | { dist: exponential, mean, max? } | { dist: lognormal, mean, stddev, max? } (durations; max defaults to mean + 5 stddevs, or 10 x mean for exponential).',
    });
}

/** `session:` of a scenario. */
export function sessionSchema<D extends z.ZodType, L extends z.ZodType>(duration: D, length: L) {
  return z
    .strictObject({
      turns: length.optional().meta({
        description:
          "User turns per session: a number or a distribution (as input_tokens). With prompt.dataset, at most the conversation's own user turns; omitted: all of them.",
      }),
      think_time: thinkTimeSchema(duration).optional(),
      user_tokens: length.optional().meta({
        description: 'Tokens of each later user message (turn 2 on); default prompt.input_tokens.',
      }),
    })
    .meta({
      id: 'session',
      description:
        "Multi-turn sessions: one arrival (or closed-loop user) runs one session of `turns` requests, each sending the conversation so far with the server's real answers; `requests` and max_concurrency count sessions.",
    });
}

/** `tool_loop:` of a scenario. */
export const toolLoopSchema = z
  .strictObject({
    max_rounds: z
      .number()
      .int()
      .min(1)
      .max(32)
      .optional()
      .meta({ description: 'Follow-up requests carrying tool results per user turn (default 3).' }),
    result_tokens: z
      .number()
      .int()
      .min(1)
      .optional()
      .meta({ description: 'Tokens of each synthetic tool result (default 32).' }),
  })
  .meta({
    id: 'toolLoop',
    description:
      'When an answer calls tools, send it back with one synthetic tool result per call and ask again, up to max_rounds times (needs request.tools).',
  });
