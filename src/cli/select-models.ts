/**
 * The CLI side of `models:` selectors: which keys they may use (the API key for `all`; the management key,
 * from the environment only, for `endpoints_of`; the embedded emulator's throwaway keys there) and the
 * lines that say what they selected. The asking itself is runner/model-selectors.ts.
 */
import { InferbenchError } from '../errors.js';
import type { ProxySettings } from '../client/proxy.js';
import { formatModelSelector } from '../profile/sections/models.js';
import type { ResolvedProfile } from '../profile/resolved-profile.js';
import { resolveModelSelectors } from '../runner/model-selectors.js';
import { requestHeaders } from '../runner/request-headers.js';
import type { CliContext } from './context.js';
import { inferbenchVersion } from './version.js';

/** What selecting needs of the target session (target-session.ts). */
export interface SelectionTarget {
  readonly target: string;
  readonly apiKey: string | null;
  /** The embedded emulator's throwaway management key; null for a real target (the environment's then). */
  readonly emulatorManagementKey: string | null;
  readonly proxy: ProxySettings | null;
  readonly tls: ResolvedProfile['target']['tls'];
}

/** `endpoints_of` against a real target needs the management key: checked before anything starts (exit 2). */
export function checkManagementKey(profile: ResolvedProfile, env: CliContext['env'], embedded: boolean): void {
  if (embedded) return;
  const selector = profile.scenarios.find((s) => s.modelSelector?.kind === 'endpoints_of')?.modelSelector;
  if (selector === undefined) return;
  const name = profile.target.managementKeyEnv;
  if ((env[name] ?? '') === '')
    throw new InferbenchError(
      'BAD_USAGE',
      `models: ${formatModelSelector(selector)} needs a management key in the environment variable ${name}, which is not set`,
      {
        hint: `export ${name}=<management key> (a management key, not an API key), or name another variable in target.management_key_env`,
      },
    );
}

/** The profile with its selectors resolved against the target; prints what they selected unless quiet. */
export async function selectModels(
  profile: ResolvedProfile,
  target: SelectionTarget,
  ctx: CliContext,
  quiet: boolean,
): Promise<ResolvedProfile> {
  const selected = await resolveModelSelectors(profile, {
    request: {
      baseUrl: target.target,
      headers: requestHeaders(inferbenchVersion(), profile.target.headers),
      tls: target.tls,
      proxy: target.proxy,
    },
    apiKey: target.apiKey,
    managementKey: () => {
      const key = target.emulatorManagementKey ?? ctx.env[profile.target.managementKeyEnv] ?? '';
      if (key === '')
        throw new InferbenchError('BAD_USAGE', `no management key in ${profile.target.managementKeyEnv}`, {
          hint: `export ${profile.target.managementKeyEnv}=<management key>`,
        });
      return key;
    },
  });
  if (!quiet) for (const note of selected.notes) ctx.stderr.write(`inferbench: ${note}\n`);
  return selected.profile;
}
