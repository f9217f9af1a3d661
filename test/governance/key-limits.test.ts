// Issue 18's key limits on both stores: the shared behaviour (key-limits-behaviour.ts) run once on
// the embedded SQLite file and once on a real PostgreSQL server.
import { describe, it } from 'vitest';
import { postgresUnavailable } from '../support/postgres.ts';
import { keyLimitsBehaviour } from './key-limits-behaviour.ts';
import { STORE_KINDS, storeUnderTest } from './store-under-test.ts';

describe.each(STORE_KINDS)('key limits on the %s store', (kind) => {
  const skip = kind === 'postgres' ? postgresUnavailable() : undefined;
  if (skip !== undefined) {
    it.skip(`PostgreSQL: ${skip}`, () => undefined);
    return;
  }
  keyLimitsBehaviour(storeUnderTest(kind));
});
