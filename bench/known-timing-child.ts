/**
 * The known-timing server as a child process of a benchmark (`fork()` this file with the server's
 * options as JSON in argv[2]): its own process, as a real server would be, so that it shares nothing
 * with the client under test but the machine. Talks over the IPC channel: it sends `{ url }` once
 * listening, answers 'stats' with its KnownTimingStats, 'reset' with 'ok', and exits on 'close'.
 */
import { startKnownTimingServer, type KnownTimingOptions } from '../test/helpers/known-timing/known-timing-server.js';

const options = JSON.parse(process.argv[2] ?? '{}') as KnownTimingOptions;
const server = await startKnownTimingServer(options);
const send = (message: unknown): void => {
  process.send?.(message);
};
send({ url: server.url });
process.on('message', (message: unknown) => {
  if (message === 'stats') {
    const s = server.stats;
    send({
      traces: s.traces,
      ttftMs: s.ttftMs,
      itlMs: s.itlMs,
      e2eMs: s.e2eMs,
      lateMs: s.lateMs,
      completed: s.completed,
      maxActive: s.maxActive,
    });
  } else if (message === 'reset') {
    server.stats.reset();
    send('ok');
  } else if (message === 'close') {
    void server.close().then(() => process.exit(0));
  }
});
// The parent went away: nothing left to serve.
process.on('disconnect', () => {
  void server.close().then(() => process.exit(0));
});
