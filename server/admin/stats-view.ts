import type { components } from '../../generated/admin-api.ts';
import type { RuntimeConfig } from '../config/runtime-config.ts';
import type { KeyAdmin } from '../governance/governance.ts';
import { statsSnapshot } from '../observability/stats-snapshot.ts';
import type { LiveState } from './live-state.ts';

type StatsView = components['schemas']['StatsView'];

/**
 * GET /stats on the admin plane: the whole snapshot (observability/stats-snapshot.ts, which the
 * data plane's /stats shows too) and the key store's counts. Reads only.
 */
export async function statsView(options: {
  config: RuntimeConfig;
  startedAt: number;
  live: LiveState;
  keys: KeyAdmin | undefined;
  now?: number;
}): Promise<StatsView> {
  const snapshot = statsSnapshot({
    config: options.config,
    startedAt: options.startedAt,
    sources: options.live,
    ...(options.now !== undefined && { now: options.now }),
  });
  const keys = options.keys === undefined ? undefined : await options.keys.listKeys();
  return {
    ...snapshot,
    ...(keys !== undefined && {
      keys: { total: keys.length, active: keys.filter((k) => k.revokedAt === null).length, revoked: keys.filter((k) => k.revokedAt !== null).length },
    }),
  };
}
