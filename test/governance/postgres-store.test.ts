// What only the shared store has: migrations once per fleet under a lock and a refusal to run on
// a newer schema, on_store_error (deny: 503 with Retry-After; allow: known keys pass and their
// spend is recorded when the database is back), and a settlement that outlives an outage.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { identityKeyDeriver } from '../../server/auth/key-derivation.ts';
import { createPostgresGovernance } from '../../server/governance/postgres/postgres-governance.ts';
import { POSTGRES_SCHEMA_VERSION } from '../../server/governance/postgres/postgres-schema.ts';
import { GatewayFailure } from '../../server/ir/error.ts';
import { postgresUnavailable, startPostgres, type PostgresServer } from '../support/postgres.ts';
import { SILENT, usage } from './support.ts';

const skip = postgresUnavailable();
let server: PostgresServer;
beforeAll(async () => {
  if (skip === undefined) server = await startPostgres();
}, 60_000);
afterAll(() => server?.stop());

const open = (url: string, onStoreError: 'deny' | 'allow' = 'deny') =>
  createPostgresGovernance({ url, secret: 's', log: SILENT, onStoreError, leaseMs: 30_000 });
const settlement = (requestId: string, cost: bigint) => ({ costMicrocents: cost, usage: usage(1, 1), requestId, model: 'm', lane: 'l', estimated: false });

async function sql(url: string, text: string): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(text);
  } finally {
    await client.end();
  }
}

describe.skipIf(skip !== undefined)('the PostgreSQL store', () => {
  it('migrates once when several nodes start at once, and refuses a newer schema with a clear start error', async () => {
    const url = await server.createDatabase();
    const nodes = await Promise.all([open(url), open(url), open(url)]);
    await Promise.all(nodes.map((n) => n.close()));
    expect((await sql(url, 'SELECT version FROM gateway_schema')).rows).toEqual([{ version: POSTGRES_SCHEMA_VERSION }]);
    await sql(url, 'UPDATE gateway_schema SET version = 99');
    await expect(open(url)).rejects.toThrow(
      `cannot use the PostgreSQL store (database_url): the database has gateway schema version 99, newer than this build knows (${POSTGRES_SCHEMA_VERSION})`,
    );
  });

  it('names no password when the database cannot be reached at start', async () => {
    const url = `postgres://gateway:hunter2-secret@127.0.0.1:${server.port + 1}/none`;
    const error = await open(url).catch((e: unknown) => e as Error);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toMatch(/^cannot use the PostgreSQL store \(database_url\)/);
    expect((error as Error).message).not.toContain('hunter2');
  });

  it('on_store_error deny: 503 store_unavailable with Retry-After while down, nothing half-written, and back by itself', { timeout: 60_000 }, async () => {
    const url = await server.createDatabase();
    const governance = await open(url);
    try {
      const { key, secret } = await governance.createKey({ budgetMicrocents: 10_000n, rpm: 100 });
      await governance.settle(await governance.admit(key, { worstCaseMicrocents: 1000n, priced: true, worstCaseTokens: 0 }), settlement('before', 600n));
      server.pause();
      try {
        await governance.authenticatePresented(secret); // the cached key: no query needed
        const refusal = await Promise.resolve()
          .then(() => governance.admit(key, { worstCaseMicrocents: 1000n, priced: true, worstCaseTokens: 0 }))
          .catch((e: unknown) => e);
        expect(refusal).toBeInstanceOf(GatewayFailure);
        expect((refusal as GatewayFailure).error).toMatchObject({ kind: 'unavailable', status: 503, code: 'store_unavailable', retryAfterSeconds: 2 });
        await expect(governance.ping()).rejects.toThrow();
      } finally {
        server.resume();
      }
      let reservation: Awaited<ReturnType<typeof governance.admit>> | undefined;
      for (let attempt = 0; reservation === undefined; attempt++) {
        reservation = await Promise.resolve(governance.admit(key, { worstCaseMicrocents: 1000n, priced: true, worstCaseTokens: 0 })).catch((e: unknown) => {
          if (attempt > 50) throw e;
          return new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 100));
        });
      }
      await governance.settle(reservation, settlement('after', 700n));
      expect(await governance.getKey(key.id)).toMatchObject({ spentMicrocents: 1300n, reservedMicrocents: 0n });
    } finally {
      server.resume();
      await governance.close();
    }
  });

  it('a settlement made while the database is down is committed once it is back (the reservation held meanwhile)', { timeout: 60_000 }, async () => {
    const url = await server.createDatabase();
    const governance = await open(url);
    try {
      const { key } = await governance.createKey({ budgetMicrocents: 10_000n });
      const reservation = await governance.admit(key, { worstCaseMicrocents: 4000n, priced: true, worstCaseTokens: 0 });
      server.pause();
      const settled = governance.settle(reservation, settlement('during', 1500n));
      await new Promise((resolve) => setTimeout(resolve, 1000));
      server.resume();
      expect(await settled).toBe(true);
      expect(await governance.getKey(key.id)).toMatchObject({ spentMicrocents: 1500n, reservedMicrocents: 0n });
      expect((await sql(url, 'SELECT count(*)::int AS n FROM gateway_spend_ledger')).rows[0].n).toBe(1);
    } finally {
      server.resume();
      await governance.close();
    }
  });

  it('on_store_error allow: a known key is admitted unmetered while the database is down; its spend is recorded when it is back', {
    timeout: 60_000,
  }, async () => {
    const url = await server.createDatabase();
    const governance = await open(url, 'allow');
    try {
      const { key, secret } = await governance.createKey({ budgetMicrocents: 10_000n, rpm: 1 });
      await governance.authorizePresented(secret);
      server.pause();
      let settled: Promise<boolean>;
      try {
        const pass = await governance.authorizePresented(secret); // the rpm is not counted while down
        expect(pass).not.toHaveProperty('refusal');
        const reservation = await governance.reserve(key, { worstCaseMicrocents: 4000n, priced: true, worstCaseTokens: 0 });
        settled = governance.settle(reservation, settlement('open', 900n));
        // An unknown key is still refused: it cannot be checked without the store.
        await expect(Promise.resolve().then(() => governance.authenticatePresented('gwk_unknown'))).rejects.toMatchObject({ error: { status: 503 } });
      } finally {
        server.resume();
      }
      expect(await settled).toBe(true);
      expect(await governance.getKey(key.id)).toMatchObject({ spentMicrocents: 900n, reservedMicrocents: 0n });
    } finally {
      server.resume();
      await governance.close();
    }
  });

  it('a self-serve key is the same key on every node: two nodes exchanging at once for one person create it once', async () => {
    const url = await server.createDatabase();
    const [a, b] = await Promise.all([open(url), open(url)]);
    try {
      const derive = identityKeyDeriver('derivation-secret');
      const bob = { issuer: 'https://idp.example.com', subject: 'bob', team: 'ml', name: 'self-serve (ml)', owner: 'bob', budgetMicrocents: 100n, rpm: null };
      const issued = await Promise.all(Array.from({ length: 6 }, (_, i) => (i % 2 === 0 ? a : b).issueIdentityKey(bob, (g) => derive(bob, g))));
      expect(new Set(issued.map((r) => r.issued.secret)).size).toBe(1);
      expect(issued.filter((r) => r.issued.created)).toHaveLength(1);
      expect((await b.authenticatePresented(issued[0]!.issued.secret)).id).toBe(issued[0]!.key.id);
      expect(await a.listKeys()).toHaveLength(1);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('the lease rule: an expired reservation is charged at its worst case; a late settlement replaces the charge, a late release refunds it', async () => {
    const url = await server.createDatabase();
    const governance = await open(url);
    try {
      const { key } = await governance.createKey({ budgetMicrocents: 100_000n });
      const priced = (worst: bigint) => ({ worstCaseMicrocents: worst, priced: true, worstCaseTokens: 0 });
      const [settledLate, releasedLate, lost] = [
        await governance.admit(key, priced(10_000n)),
        await governance.admit(key, priced(20_000n)),
        await governance.admit(key, priced(5_000n)),
      ];
      // As if this node had been cut off for longer than the lease: the leases run out, and a
      // sweep (any node's) applies the rule, in one transaction.
      await sql(url, "UPDATE gateway_reservations SET lease_until = clock_timestamp() - interval '1 second'; SELECT gateway_expire_leases(0)");
      expect(await governance.getKey(key.id)).toMatchObject({ spentMicrocents: 35_000n, reservedMicrocents: 0n });
      expect(await governance.settle(settledLate, settlement('late', 1_234n))).toBe(true);
      await governance.release(releasedLate);
      expect(await governance.getKey(key.id)).toMatchObject({ spentMicrocents: 1_234n + 5_000n, reservedMicrocents: 0n });
      const rows = (await sql(url, 'SELECT request_id, cost_microcents::int AS cost, estimated FROM gateway_spend_ledger ORDER BY request_id')).rows;
      expect(rows).toEqual([
        { request_id: 'late', cost: 1234, estimated: false },
        { request_id: `lease:${lost.id}`, cost: 5000, estimated: true },
      ]);
    } finally {
      await governance.close();
    }
  });
});
