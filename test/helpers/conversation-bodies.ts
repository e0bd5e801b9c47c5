/**
 * Reading what a conversation server (conversation-server.ts, or any recording server) received, and a
 * run's requests.csv: the messages of a body, bodies grouped by session (prompt_cache_key), CSV rows.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface Message {
  role: string;
  content: string | null;
  tool_calls?: { id: string }[];
  tool_call_id?: string;
}

export const messagesOf = (body: Record<string, unknown>): Message[] => body.messages as Message[];

/** requests.csv rows as objects (no cell of these runs holds a comma). */
export function csvRows(runDir: string): Record<string, string>[] {
  const [header, ...rows] = readFileSync(join(runDir, 'requests.csv'), 'utf8').trim().split('\n');
  const columns = header!.split(',');
  return rows.map((row) => Object.fromEntries(row.split(',').map((cell, i) => [columns[i]!, cell])));
}

/** Request bodies grouped by prompt_cache_key, in arrival order. */
export function bySession(bodies: readonly Record<string, unknown>[]): Map<string, number[]> {
  const sessions = new Map<string, number[]>();
  bodies.forEach((body, i) => {
    const key = String(body.prompt_cache_key);
    sessions.set(key, [...(sessions.get(key) ?? []), i]);
  });
  return sessions;
}
