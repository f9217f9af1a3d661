// The governance store under test: the embedded SQLite file or a PostgreSQL database on a real
// server this test file starts (test/support/postgres.ts). One suite runs against each.
import { afterAll, afterEach, beforeAll } from 'vitest';
import type { OwnerGovernance } from '../../server/governance/governance.ts';
import { createPostgresGovernance } from '../../server/governance/postgres/postgres-governance.ts';
import { startPostgres, type PostgresServer } from '../support/postgres.ts';
import { manualClock, openGovernance, SILENT, tempDbPath, type ManualClock } from './support.ts';

export type StoreKind = 'sqlite' | 'postgres';
export const STORE_KINDS: readonly StoreKind[] = ['sqlite', 'postgres'];

export interface OpenOptions {
  secret?: string;
  /** The monotonic clock of the rate windows (rpm). */
  clock?: ManualClock;
  /** The wall clock (stored times). */
  wall?: () => number;
  /**
   * One clock for everything time-driven, in epoch ms: the rate windows (rpm, tpm) and the wall
   * clock (budget periods, expiry, a rotated secret's grace, the ledger's times). Tests of those
   * set and advance only this; each store maps it to its own clock options below.
   */
  time?: ManualClock;
}

export interface StoreUnderTest {
  readonly kind: StoreKind;
  /** Where a new, empty store lives: a file path or a database URL. */
  fresh(): Promise<string>;
  /** Opens governance on it (closed after each test unless closed before). */
  open(location: string, options?: OpenOptions): Promise<OwnerGovernance>;
  /** The PostgreSQL server, for tests that stop it. */
  readonly server?: PostgresServer;
}

/** `time` drives both the rate windows and the wall clock. */
function timed(options: OpenOptions): OpenOptions {
  const { time } = options;
  if (time === undefined) return options;
  return { ...options, clock: time, wall: () => time.now() };
}

/** Call inside a describe: registers the hooks that start the server and close what was opened. */
export function storeUnderTest(kind: StoreKind): StoreUnderTest {
  const opened: OwnerGovernance[] = [];
  afterEach(async () => {
    for (const governance of opened.splice(0)) await governance.close();
  });
  let server: PostgresServer | undefined;
  if (kind === 'postgres') {
    beforeAll(async () => {
      server = await startPostgres();
    }, 60_000);
    afterAll(() => server?.stop());
  }
  return {
    kind,
    get server() {
      return server;
    },
    fresh: async () => (kind === 'sqlite' ? tempDbPath() : server!.createDatabase()),
    async open(location, given = {}) {
      const options = timed(given);
      const governance =
        kind === 'sqlite'
          ? openGovernance(location, options)
          : await createPostgresGovernance({
              url: location,
              secret: options.secret,
              log: SILENT,
              onStoreError: 'deny',
              leaseMs: 30_000,
              rateClock: options.clock ?? manualClock(),
              ...(options.wall !== undefined && { wallClock: options.wall }),
            });
      opened.push(governance);
      return governance;
    },
  };
}
