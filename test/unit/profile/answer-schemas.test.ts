/**
 * The schemas answers are checked against (tools' parameters, response_format's json_schema) must compile:
 * one that does not is a profile problem naming its line and field, found before anything is sent.
 */
import { describe, expect, it } from 'vitest';
import { resolveProfileText } from '../../../src/profile/load-profile.js';
import { profileProblems } from '../../helpers/profile-problems.js';

const profile = (request: string): string => `name: p
defaults:
  request: { temperature: 0 }
scenarios:
  - name: s
    load: { mode: concurrency, concurrency: 1 }
    requests: 1
    request:
${request}
`;

describe('answer schemas in a profile', () => {
  it('a tool parameters schema that does not compile names its line and field', () => {
    const problems = profileProblems(
      profile(`      tools:
        - type: function
          function:
            name: f
            parameters: { type: object, required: yes }`),
    );
    expect(problems).toEqual([
      'p.yaml:13:25: scenarios[0].request.tools[0].function.parameters: not a JSON Schema answers can be checked against: schema is invalid: data/required must be array',
    ]);
  });

  it('so does a response_format schema', () => {
    const problems = profileProblems(
      profile(`      response_format:
        type: json_schema
        json_schema: { name: r, schema: { type: objekt } }`),
    );
    expect(problems).toEqual([
      expect.stringMatching(
        /^p\.yaml:11:\d+: scenarios\[0\]\.request\.response_format\.json_schema\.schema: not a JSON Schema/,
      ),
    ]);
  });

  it('valid schemas load (draft-07 $schema, formats and descriptions accepted)', () => {
    const text = profile(`      tools:
        - type: function
          function:
            name: f
            parameters:
              $schema: http://json-schema.org/draft-07/schema#
              type: object
              properties: { when: { type: string, format: date-time, description: ISO time } }`);
    expect(() => resolveProfileText(text, 'p.yaml', [], '.')).not.toThrow();
  });
});
