import { StartError } from '../app/start-error.ts';
import type { RuntimeConfig } from '../config/runtime-config.ts';
import type { ConfigHistory } from '../config/config-history.ts';
import { sqliteConfigHistory } from '../config/sqlite-config-history.ts';
import type { Logger } from '../shared/logger.ts';
import { createGovernance, type LocalGovernance, type OwnerGovernance } from './governance.ts';
import type { MillisecondClock } from './rate-limiter.ts';

/**
 * The configured store: the embedded SQLite file (db_path) or PostgreSQL shared by a fleet
 * (database_url; its client is loaded only then). Opened before anything listens, so a locked,
 * unreachable or newer store stops the start. undefined: no store is configured. The store also
 * keeps the configuration history (`configHistory`).
 */
export async function openGovernanceStore(
  config: Pick<RuntimeConfig, 'dbPath' | 'databaseUrl' | 'governanceSecret' | 'onStoreError' | 'reservationLeaseMs'>,
  options: { clock: MillisecondClock; log: Logger; wallClock?: () => number },
): Promise<{ owner: OwnerGovernance; local?: LocalGovernance; configHistory: ConfigHistory } | undefined> {
  if (config.databaseUrl !== undefined) {
    const { createPostgresGovernance } = await import('./postgres/postgres-governance.ts');
    const { postgresConfigHistory } = await import('../config/postgres-config-history.ts');
    try {
      const owner = await createPostgresGovernance({
        url: config.databaseUrl,
        secret: config.governanceSecret,
        log: options.log,
        onStoreError: config.onStoreError,
        leaseMs: config.reservationLeaseMs,
        // A test's wall clock decides the periods too (in production the database's clock does).
        ...(options.wallClock !== undefined && { wallClock: options.wallClock, periodClock: options.wallClock }),
      });
      return { owner, configHistory: postgresConfigHistory(owner.pool, owner.nodeId) };
    } catch (error) {
      // One sentence for the operator (unreachable, newer schema, another secret); never the URL.
      throw new StartError((error as Error).message, (error as { code?: string }).code);
    }
  }
  if (config.dbPath === undefined) return undefined;
  try {
    const local = createGovernance({
      dbPath: config.dbPath,
      secret: config.governanceSecret,
      clock: options.clock,
      log: options.log,
      ...(options.wallClock !== undefined && { wallClock: options.wallClock }),
    });
    return { owner: local, local, configHistory: sqliteConfigHistory(local.store.db) };
  } catch (error) {
    // The store's refusals (held by another gateway, not a database, a newer schema, ...) name the
    // file and say what to do: that one sentence, without a stack trace.
    if (error instanceof Error && error.message.includes(config.dbPath)) throw new StartError(error.message);
    throw error;
  }
}
