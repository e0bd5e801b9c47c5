/**
 * What `run` and `capacity` share before the first request: the profile from its path and `--set`
 * overrides, and the target: `--base-url`, else target.base_url, else the embedded emulator (started here,
 * stopped by `stop()`). The embedded emulator gets a throwaway key; a real target gets the key from the
 * environment only, and the proxy settings of the environment (never for the local emulator). The
 * profile's `models:` selectors are resolved here, once (session.profile is the profile to run).
 */
import { isAbsolute, resolve } from 'node:path';
import { InferbenchError } from '../errors.js';
import { proxyFor, proxySettingsFromEnv, withoutCredentials, type ProxySettings } from '../client/proxy.js';
import { INSECURE_TLS_WARNING } from '../client/tls-options.js';
import { loadProfile } from '../profile/load-profile.js';
import type { ResolvedProfile } from '../profile/resolved-profile.js';
import type { CliContext } from './context.js';
import { refuseApisTheEmulatorLacks, startEmbeddedEmulator, type EmbeddedEmulator } from './embedded-emulator.js';
import { checkManagementKey, selectModels } from './select-models.js';

export interface TargetArgs {
  readonly profile: string;
  readonly 'base-url'?: string;
  readonly 'api-key-env'?: string;
  readonly set?: string | string[];
  /** `--server-metrics URL` (repeatable): an endpoint of target.server_metrics with the defaults. */
  readonly 'server-metrics'?: string | string[];
  /** Whether the command prints only results: then what `models:` selectors selected is not said. */
  readonly quiet?: boolean;
  readonly json?: boolean;
}

export interface TargetSession {
  /** The profile as it runs: its `models:` selectors resolved against the target (select-models.ts). */
  readonly profile: ResolvedProfile;
  /** Base URL without /v1. */
  readonly target: string;
  /** Never printed or written. */
  readonly apiKey: string | null;
  readonly emulator: EmbeddedEmulator | null;
  readonly proxy: ProxySettings | null;
  readonly tls: ResolvedProfile['target']['tls'];
  /** "the embedded emulator (URL)" or the URL, for the first line a command prints. */
  readonly description: string;
  stop(): Promise<void>;
}

/** The profile named on the command line, with its `--set` overrides. */
export function loadProfileArgument(args: TargetArgs, ctx: CliContext): ResolvedProfile {
  const profilePath = isAbsolute(args.profile) ? args.profile : resolve(ctx.cwd, args.profile);
  const list = (value: string | string[] | undefined): string[] =>
    value === undefined ? [] : Array.isArray(value) ? value : [value];
  return loadProfile(profilePath, { overrides: list(args.set), serverMetrics: list(args['server-metrics']) });
}

export async function openTarget(profile: ResolvedProfile, args: TargetArgs, ctx: CliContext): Promise<TargetSession> {
  const apiKeyEnv = args['api-key-env'] ?? profile.target.apiKeyEnv;
  const baseUrlFlag = args['base-url'] ?? null;
  if (baseUrlFlag !== null) checkBaseUrl(baseUrlFlag);
  const baseUrl = baseUrlFlag ?? profile.target.baseUrl;
  checkManagementKey(profile, ctx.env, baseUrl === null);
  if (baseUrl === null) refuseApisTheEmulatorLacks(profile);
  const emulator =
    baseUrl === null
      ? await startEmbeddedEmulator({ configPath: profile.target.emulatorConfig, env: childEnv(ctx.env) })
      : null;
  const target = emulator ? emulator.url : (baseUrl as string).replace(/\/+$/, '').replace(/\/v1$/, '');
  const connection = {
    target,
    apiKey: emulator ? emulator.apiKey : (ctx.env[apiKeyEnv] ?? null),
    // The embedded emulator is local: a corporate proxy in the environment must not carry its requests.
    proxy: emulator ? null : proxySettingsFromEnv(ctx.env),
    tls: profile.target.tls,
  };
  try {
    const selected = await selectModels(
      profile,
      { ...connection, emulatorManagementKey: emulator?.managementKey ?? null },
      ctx,
      Boolean(args.quiet || args.json),
    );
    return {
      ...connection,
      profile: selected,
      emulator,
      description: emulator ? `the embedded emulator (${target})` : target,
      stop: async () => {
        await emulator?.stop();
      },
    };
  } catch (error) {
    await emulator?.stop();
    throw error;
  }
}

/** `--base-url` must be an http(s) URL (exit 2 otherwise). */
export function checkBaseUrl(text: string): void {
  let url: URL | null = null;
  try {
    url = new URL(text);
  } catch {
    url = null;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new InferbenchError('BAD_USAGE', `--base-url ${JSON.stringify(text)} is not an http(s) URL`, {
      hint: 'give the service root, e.g. --base-url https://api.example.com (with or without /v1)',
    });
  }
}

/**
 * The proxy in use (without its credentials), and a warning that cannot be missed when the target's
 * certificate is not verified: printed even with --quiet, since it changes what the numbers are worth.
 */
export function announceConnection(ctx: CliContext, session: TargetSession, quiet: boolean): void {
  const proxy = session.proxy === null ? null : proxyFor(session.target, session.proxy);
  if (proxy !== null && !quiet)
    ctx.stderr.write(
      `inferbench: through the proxy ${withoutCredentials(proxy)} (from the environment; connect_ms is the connect to the proxy)\n`,
    );
  if (session.tls?.insecureSkipVerify) {
    const bar = '!'.repeat(78);
    ctx.stderr.write(`${bar}\ninferbench: WARNING: ${INSECURE_TLS_WARNING}.\n${bar}\n`);
  }
}

/** The emulator child needs no secrets: only what Node itself uses. */
function childEnv(env: CliContext['env']): Record<string, string | undefined> {
  return { PATH: env.PATH, NODE_OPTIONS: env.NODE_OPTIONS, INFERBENCH_DEBUG: env.INFERBENCH_DEBUG };
}
