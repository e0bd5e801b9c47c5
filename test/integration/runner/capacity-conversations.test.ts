/**
 * `capacity` searches a load in requests per second (or streams) and reads its numbers as requests; a
 * scenario with `session` or `tool_loop` starts a whole conversation per arrival, so it is refused: exit 2,
 * a message naming the scenario, and not one chat completion sent. Nothing is timed: it runs beside the
 * other files.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../../helpers/cli.js';
import {
  CONVERSATION_MODEL,
  type ConversationServer,
  startConversationServer,
} from '../../helpers/conversation-server.js';
import { useRunFolder } from '../../helpers/run-folder.js';

const folder = useRunFolder('inferbench-capacity-conversations-');
let server: ConversationServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

const TOOLS = '[{ type: function, function: { name: lookup, parameters: { type: object } } }]';

describe('capacity over conversations', () => {
  it.each([
    ['session', 'session: { turns: 3, think_time: 0s }', 'it runs sessions'],
    ['tool_loop', `request: { tools: ${TOOLS} }\n    tool_loop: { max_rounds: 2 }`, 'it runs a tool loop'],
  ])(
    'refuses a scenario with %s before anything is sent',
    async (name, fields, said) => {
      server = await startConversationServer();
      const profile = folder.writeProfile(
        `capacity-${name}`,
        `scenarios:
  - name: chat
    models: [${CONVERSATION_MODEL}]
    load: { mode: rate, rate: 2 }
    duration: 2s
    prompt: { input_tokens: 10 }
    ${fields}
capacity: { slo: { ttft_ms.p95: 400ms } }
`,
      );
      const result = await runCliInProcess(
        ['capacity', profile, '--base-url', server.url, '--out', join(folder.dir, `cap-${name}`)],
        { cwd: folder.dir },
      );
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`capacity cannot search scenario chat: ${said}`);
      expect(result.stderr).not.toMatch(/\n\s+at /);
      expect(server.bodies).toHaveLength(0);
    },
    30_000,
  );
});
