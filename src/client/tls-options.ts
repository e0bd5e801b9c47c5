/**
 * target.tls -> the options every TLS connection of a client is opened with: one secure context built
 * once from the PEM files (CA bundle, client certificate and key), and whether the server's certificate
 * is verified. A file that cannot be read or parsed is a profile error naming the file; the contents
 * (key material above all) are never put in a message.
 */
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createSecureContext, type SecureContext } from 'node:tls';
import { InferbenchError } from '../errors.js';
import type { TlsSpec } from '../profile/resolved-profile.js';

/** The warning of a run with target.tls.insecure_skip_verify (terminal and summary.json harness.warnings). */
export const INSECURE_TLS_WARNING =
  "target.tls.insecure_skip_verify is true: the target's TLS certificate was NOT verified, so anyone between here and the target could have answered";

/** What buildConnector passes on to tls.connect for a target. */
export interface TlsConnectOptions {
  /** Absent: Node's defaults (the system CAs, no client certificate). */
  readonly secureContext?: SecureContext;
  readonly rejectUnauthorized: boolean;
}

function readPem(path: string, field: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    throw new InferbenchError('BAD_PROFILE', `target.tls.${field}: cannot read ${path} (${code})`, {
      cause: error,
      hint: 'give the path of a readable PEM file, relative to the profile',
    });
  }
}

/** Throws BAD_PROFILE naming `path` when `parse` fails (its message names no contents). */
function checkPem(path: string, field: string, parse: () => unknown): void {
  try {
    parse();
  } catch (error) {
    const what = field === 'key' ? 'a PEM private key' : 'a PEM certificate';
    throw new InferbenchError('BAD_PROFILE', `target.tls.${field}: ${path} is not ${what}`, {
      cause: error,
      hint: 'ca and cert are PEM certificates ("-----BEGIN CERTIFICATE-----"), key a PEM private key',
    });
  }
}

/** Reads and checks the files of `spec` (null: defaults). Throws InferbenchError BAD_PROFILE naming the file. */
export function loadTlsOptions(spec: TlsSpec | null | undefined): TlsConnectOptions {
  if (spec === null || spec === undefined) return { rejectUnauthorized: true };
  const rejectUnauthorized = !spec.insecureSkipVerify;
  if (spec.caPath === null && spec.certPath === null && spec.keyPath === null) return { rejectUnauthorized };
  const ca = spec.caPath === null ? undefined : readPem(spec.caPath, 'ca');
  const cert = spec.certPath === null ? undefined : readPem(spec.certPath, 'cert');
  const key = spec.keyPath === null ? undefined : readPem(spec.keyPath, 'key');
  // OpenSSL skips what is not a certificate in a CA bundle without a word: check each file parses.
  if (ca !== undefined) checkPem(spec.caPath as string, 'ca', () => new X509Certificate(ca));
  if (cert !== undefined) checkPem(spec.certPath as string, 'cert', () => new X509Certificate(cert));
  if (key !== undefined) checkPem(spec.keyPath as string, 'key', () => createPrivateKey(key));
  try {
    return { secureContext: createSecureContext({ ca, cert, key }), rejectUnauthorized };
  } catch (error) {
    // OpenSSL's own words ("no start line", "key values mismatch") say what is wrong without the contents.
    const files = [spec.caPath, spec.certPath, spec.keyPath].filter((path) => path !== null).join(', ');
    const reason = error instanceof Error ? error.message : String(error);
    throw new InferbenchError('BAD_PROFILE', `target.tls: the PEM files could not be used (${files}): ${reason}`, {
      cause: error,
      hint: 'ca, cert and key must be PEM files, and key must be the private key of cert',
    });
  }
}
