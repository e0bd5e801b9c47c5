/**
 * Request/answer messages between the client benchmark and its child processes over the IPC channel:
 * `{ id, cmd, arg }` in, `{ id, result }` or `{ id, error }` out. The child side is serveRpc(); the
 * parent side is PinnedProcess (client-pinned-process.ts).
 */

export interface RpcRequest {
  readonly id: number;
  readonly cmd: string;
  readonly arg: unknown;
}

export interface RpcAnswer {
  readonly id: number;
  readonly result?: unknown;
  readonly error?: string;
}

export type RpcHandlers = Readonly<Record<string, (arg: never) => unknown>>;

/** In a child: answers every request with its handler's (awaited) result; exits when the parent goes. */
export function serveRpc(handlers: RpcHandlers, onDisconnect: () => void): void {
  process.on('message', (message: RpcRequest) => {
    const handler = handlers[message.cmd] as ((arg: unknown) => unknown) | undefined;
    const answer = async (): Promise<RpcAnswer> => {
      if (handler === undefined) return { id: message.id, error: `unknown command ${message.cmd}` };
      try {
        return { id: message.id, result: await handler(message.arg) };
      } catch (error) {
        return { id: message.id, error: error instanceof Error ? (error.stack ?? error.message) : String(error) };
      }
    };
    void answer().then((reply) => process.send?.(reply));
  });
  process.on('disconnect', onDisconnect);
}
