/**
 * The runner's real client, wrapped to note which request body each record was sent with: the accuracy
 * benchmarks find a request in the known-timing server's traces by its body.
 */
import type { RequestRecord } from '../src/client/request-record.js';
import { defaultRunnerDeps, type RunnerDeps } from '../src/runner/runner-deps.js';

/** Runner deps whose client records `record -> body` in `bodies` as each request is sent. */
export function bodyNotingDeps(bodies: Map<RequestRecord, unknown>): RunnerDeps {
  return {
    ...defaultRunnerDeps,
    createClient: (options) => {
      const client = defaultRunnerDeps.createClient(options);
      return {
        send: (plan, record, signal) => {
          bodies.set(record, plan.body);
          return client.send(plan, record, signal);
        },
        listModels: (signal) => client.listModels(signal),
        close: () => client.close(),
      };
    },
  };
}
