/**
 * target.tls in a profile: paths resolved against the profile's folder, missing files and a cert
 * without its key reported with file, line and field (BAD_PROFILE, exit 2), unknown keys refused.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveProfileText } from '../../../src/profile/load-profile.js';

const dir = mkdtempSync(join(tmpdir(), 'inferbench-tls-profile-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
writeFileSync(join(dir, 'ca.pem'), 'x');

const text = (tls: string): string => `name: t
target:
  base_url: https://api.example.com
  tls: ${tls}
scenarios:
  - name: s
    requests: 1
`;

describe('target.tls', () => {
  it('resolves paths against the profile folder', () => {
    const profile = resolveProfileText(text('{ ca: ca.pem, insecure_skip_verify: false }'), join(dir, 'p.yaml'));
    expect(profile.target.tls).toEqual({
      caPath: join(dir, 'ca.pem'),
      certPath: null,
      keyPath: null,
      insecureSkipVerify: false,
    });
    expect(
      resolveProfileText(text('{ insecure_skip_verify: true }'), join(dir, 'p.yaml')).target.tls?.insecureSkipVerify,
    ).toBe(true);
    expect(resolveProfileText(text('{}').replace('  tls: {}\n', ''), join(dir, 'p.yaml')).target.tls).toBeNull();
  });

  it('names the file, line and field of a missing file and of a cert without key', () => {
    expect(() => resolveProfileText(text('{ ca: missing.pem, cert: ca.pem }'), join(dir, 'p.yaml'))).toThrow(
      expect.objectContaining({
        code: 'BAD_PROFILE',
        message: expect.stringMatching(
          /p\.yaml:4:\d+: target\.tls\.ca: file not found: .*missing\.pem[\s\S]*target\.tls\.cert: a client certificate needs both cert and key; key is missing/,
        ),
      }),
    );
  });

  it('refuses unknown keys', () => {
    expect(() => resolveProfileText(text('{ verify: false }'), join(dir, 'p.yaml'))).toThrow(
      /target\.tls\.verify|verify/,
    );
  });
});
