/** Run ids: the UTC start time to the second plus the profile's name, e.g. 20261122T031500Z-quickstart. */

export function makeRunId(wallMs: number, profileName: string): string {
  const stamp = new Date(wallMs)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  const safeName = profileName.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '') || 'run';
  return `${stamp}-${safeName}`;
}
