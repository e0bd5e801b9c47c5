/** How compare names a run's target: credentials never shown, the embedded emulator said, two embedded runs the same target. */
import { describe, expect, it } from 'vitest';
import { sameTarget, targetLabel, withoutCredentials } from '../../../src/report/compare/target-label.js';

describe('withoutCredentials', () => {
  it('strips user:password and secret-looking query values, and keeps everything else as written', () => {
    expect(withoutCredentials('https://alice:s3cret@api.example.com')).toBe('https://api.example.com');
    expect(withoutCredentials('https://alice:s3cret@api.example.com/base/')).toBe('https://api.example.com/base/');
    expect(withoutCredentials('https://alice@api.example.com:8443/v2')).toBe('https://api.example.com:8443/v2');
    expect(withoutCredentials('https://api.example.com/x?api_key=abc&region=eu')).toBe(
      'https://api.example.com/x?api_key=REDACTED&region=eu',
    );
    expect(withoutCredentials('http://127.0.0.1:40559')).toBe('http://127.0.0.1:40559');
    expect(withoutCredentials('not a url //bob:pw@host')).toBe('not a url //host');
  });
});

describe('targetLabel and sameTarget', () => {
  const emulatorA = { baseUrl: 'http://127.0.0.1:40559', embeddedEmulator: true };
  const emulatorB = { baseUrl: 'http://127.0.0.1:36447', embeddedEmulator: true };
  const server = { baseUrl: 'http://127.0.0.1:40559', embeddedEmulator: false };
  it('labels the embedded emulator as such', () => {
    expect(targetLabel(emulatorA)).toBe('http://127.0.0.1:40559 (embedded emulator)');
    expect(targetLabel(server)).toBe('http://127.0.0.1:40559');
  });
  it('treats two embedded emulators as one target and two URLs as two', () => {
    expect(sameTarget(emulatorA, emulatorB)).toBe(true);
    expect(sameTarget(emulatorA, server)).toBe(false);
    expect(sameTarget(server, { ...server, baseUrl: 'http://127.0.0.1:36447' })).toBe(false);
    expect(sameTarget(server, { ...server })).toBe(true);
  });
});
