// `gateway store migrate --from <db_path> --to <database_url>` as an operator runs it (the real
// server/main.ts): keys, spend, revocations, the ledger, self-serve identities and the generated
// server secret arrive in PostgreSQL, where every key still authenticates; a second run into the
// now non-empty database writes nothing.
import { spawnSync } from 'node:child_process';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { identityKeyDeriver } from '../../server/auth/key-derivation.ts';
import { createPostgresGovernance } from '../../server/governance/postgres/postgres-governance.ts';
import { postgresUnavailable, startPostgres, type PostgresServer } from '../support/postgres.ts';
import { openGovernance, SILENT, tempDbPath, usage } from './support.ts';

const MAIN = new URL('../../server/main.ts', import.meta.url).pathname;
const skip = postgresUnavailable();
let server: PostgresServer;
beforeAll(async () => {
  if (skip === undefined) server = await startPostgres();
}, 60_000);
afterAll(() => server?.stop());

const migrate = (from: string, env: Record<string, string>) =>
  spawnSync(process.execPath, [MAIN, 'store', 'migrate', '--from', from, '--to', 'env:TARGET_DATABASE_URL'], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
  });

describe.skipIf(skip !== undefined)('gateway store migrate', () => {
  it('moves keys, spend, identities and the server secret from SQLite to PostgreSQL', { timeout: 60_000 }, async () => {
    const path = tempDbPath();
    const local = openGovernance(path); // no governance_secret: the generated one must travel too
    const kept = local.createKey({ name: 'kept', owner: 'team-a', budgetMicrocents: 5_000_000n, rpm: 60 });
    const gone = local.createKey({ name: 'gone' });
    for (let i = 0; i < 3; i++)
      await local.settle(local.admit(kept.key, { worstCaseMicrocents: 1000n, priced: true, worstCaseTokens: 0 }), {
        costMicrocents: 400n,
        usage: usage(1, 1),
        requestId: `r${i}`,
        model: 'm',
        lane: 'l',
        estimated: i === 2,
      });
    local.revokeKey(gone.key.id);
    const derive = identityKeyDeriver('derivation-secret');
    const alice = {
      issuer: 'https://idp.example.com',
      subject: 'alice',
      team: 'ml',
      name: 'self-serve (ml)',
      owner: 'alice',
      budgetMicrocents: 100n,
      rpm: null,
    };
    const issued = local.issueIdentityKey(alice, (g) => derive(alice, g)).issued;
    local.close();

    const url = await server.createDatabase();
    const run = migrate(path, { TARGET_DATABASE_URL: url });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('3 keys, 3 spend ledger rows, 1 identities');

    const shared = await createPostgresGovernance({ url, secret: undefined, log: SILENT, onStoreError: 'deny', leaseMs: 30_000 });
    try {
      expect((await shared.authenticatePresented(kept.secret)).id).toBe(kept.key.id);
      await expect(Promise.resolve().then(() => shared.authenticatePresented(gone.secret))).rejects.toMatchObject({ error: { code: 'key_revoked' } });
      expect(await shared.getKey(kept.key.id)).toMatchObject({
        name: 'kept',
        owner: 'team-a',
        budgetMicrocents: 5_000_000n,
        rpm: 60,
        spentMicrocents: 1200n,
        reservedMicrocents: 0n,
      });
      const again = await shared.issueIdentityKey(alice, (g) => derive(alice, g));
      expect(again.issued).toMatchObject({ created: false, generation: 0, secret: issued.secret });
      expect((await shared.listKeys()).map((k) => k.name)).toEqual(['kept', 'gone', 'self-serve (ml)']);
    } finally {
      await shared.close();
    }
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const ledger = (
      await client.query(
        'SELECT count(*)::int AS n, sum(cost_microcents)::int AS total, count(*) FILTER (WHERE estimated)::int AS estimated FROM gateway_spend_ledger',
      )
    ).rows[0];
    await client.end();
    expect(ledger).toEqual({ n: 3, total: 1200, estimated: 1 });

    const second = migrate(path, { TARGET_DATABASE_URL: url });
    expect(second.status).toBe(1);
    expect(second.stderr).toContain('the database already holds 3 keys: migrate into an empty database (nothing was written)');
  });

  it('says what is wrong without a stack or the URL', () => {
    const missing = spawnSync(process.execPath, [MAIN, 'store', 'migrate', '--from', '/nonexistent/g.db', '--to', 'env:NOT_SET_ANYWHERE'], {
      encoding: 'utf8',
    });
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain('environment variable NOT_SET_ANYWHERE is not set');
    const usageError = spawnSync(process.execPath, [MAIN, 'store', 'migrate'], { encoding: 'utf8' });
    expect(usageError.status).toBe(2);
    expect(usageError.stderr).toContain('usage: gateway store migrate');
    const unreachable = migrate(tempDbPath(), { TARGET_DATABASE_URL: 'postgres://u:pa55word@127.0.0.1:1/db' });
    expect(unreachable.status).toBe(1);
    expect(unreachable.stderr).not.toContain('pa55word');
  });
});
