/**
 * `wrk` (Debian package `wrk`, C, epoll) as a comparator for plain HTTP in the client benchmark: one
 * thread, pinned to the client's core like everything under test, POSTing the same body with a Lua
 * script. Absent wrk is no failure: the caller gets null and says so.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type PinningPlan, pinnedCommand } from './client-pinned-process.js';

/** True when a `wrk` binary runs. */
export function wrkAvailable(): boolean {
  return spawnSync('wrk', ['--version'], { stdio: 'ignore' }).error === undefined;
}

export interface WrkResult {
  readonly requestsPerS: number;
  readonly output: string;
}

/** Runs wrk against `url`'s chat completions; requests/s from its report. */
export async function runWrk(
  plan: PinningPlan,
  url: string,
  connections: number,
  durationS: number,
  body: string,
): Promise<WrkResult> {
  const dir = mkdtempSync(join(tmpdir(), 'inferbench-wrk-'));
  try {
    const script = join(dir, 'post.lua');
    writeFileSync(
      script,
      `wrk.method = "POST"\nwrk.body = ${JSON.stringify(body)}\nwrk.headers["Content-Type"] = "application/json"\n`,
    );
    const argv = ['wrk', '-t1', `-c${connections}`, `-d${durationS}s`, '-s', script, `${url}/v1/chat/completions`];
    const [command, args] = pinnedCommand(plan, plan.clientCore, argv);
    const output = await new Promise<string>((resolve, reject) => {
      const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
      let text = '';
      child.stdout.setEncoding('utf8').on('data', (part: string) => {
        text += part;
      });
      child.stderr.setEncoding('utf8').on('data', (part: string) => {
        text += part;
      });
      child.on('error', reject);
      child.on('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`wrk exited ${code}: ${text}`))));
    });
    const match = /Requests\/sec:\s+([\d.]+)/.exec(output);
    if (match === null) throw new Error(`no Requests/sec in wrk's output: ${output}`);
    return { requestsPerS: Number(match[1]), output };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
