/**
 * Run ids: the UTC start time to the second plus the profile's name, e.g. 20261122T031500Z-quickstart,
 * and for a shard its place, e.g. 20261122T031500Z-quickstart-shard-2-of-4.
 */
import { shardLabel } from '../schedule/shard.js';
import type { ShardSpec } from '../schedule/shard.js';

export function makeRunId(wallMs: number, profileName: string, shard: ShardSpec | null = null): string {
  const stamp = new Date(wallMs)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  const safeName = profileName.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '') || 'run';
  return shard === null ? `${stamp}-${safeName}` : `${stamp}-${safeName}-${shardLabel(shard)}`;
}
