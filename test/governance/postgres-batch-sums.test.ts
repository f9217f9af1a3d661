// Schema versions 4 (postgres-schema-batch-sums.ts: gateway_reserve, gateway_settle and
// gateway_release write each account once per batch), 5 (postgres-schema-rate-counts.ts: the rpm
// window counted, not scanned), 6 (postgres-schema-token-sums.ts: the tpm window totalled) and 7
// (postgres-schema-generic-plans.ts: the functions keep their plans) promise that nothing else changed: here the same seeded run of mixed
// batches (several keys and teams, budgets with and without a period, rpm and tpm, unknown and
// revoked keys, refusals of every kind, a request id settled twice, the lease rule's charge
// replaced, releases, rate refunds, window trims) goes to a version 3 database and one at this
// build's version on a real server, and every answer and every row of money, ledger and windows
// must be the same. Also: a database at version 3 with a reservation in flight and a full rate
// window migrates and goes on from there.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migratePostgres, POSTGRES_MIGRATIONS } from '../../server/governance/postgres/postgres-schema.ts';
import { postgresUnavailable, startPostgres, type PostgresServer } from '../support/postgres.ts';

const skip = postgresUnavailable();
let server: PostgresServer;
beforeAll(async () => {
  if (skip === undefined) server = await startPostgres();
}, 60_000);
afterAll(() => server?.stop());

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 5, 12);
const TEAMS = { names: ['red', 'blue'], budgets: [15_000n, null], periods: ['daily', null] } as const;

async function database(version: number): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: await server.createDatabase() });
  await client.connect();
  await migratePostgres(client, POSTGRES_MIGRATIONS.slice(0, version));
  const key = (id: string, columns: Record<string, unknown>) =>
    client.query(
      `INSERT INTO gateway_keys (id, prefix, secret_hash, created_at, budget_microcents, budget_period, tpm, team, revoked_at, rpm)
       VALUES ($1, 'p', $2, 0, $3, $4, $5, $6, $7, $8)`,
      [
        id,
        Buffer.from(id),
        columns.budget ?? null,
        columns.period ?? null,
        columns.tpm ?? null,
        columns.team ?? null,
        columns.revoked ?? null,
        columns.rpm ?? null,
      ],
    );
  await key('k1', { budget: 30_000n, team: 'red', rpm: 9 });
  await key('k2', { team: 'red', tpm: 900 });
  await key('k3', { budget: 12_000n, period: 'daily' });
  await key('k4', { team: 'blue', tpm: 2_000, budget: 50_000n, period: 'weekly', rpm: 14 });
  await key('k5', { revoked: 1 });
  return client;
}

/** A small seeded generator, so both databases get the same run. */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1_103_515_245 + 12_345) % 2 ** 31;
    return s / 2 ** 31;
  };
}

const sortByOrd = (rows: Record<string, unknown>[]) => [...rows].sort((a, b) => Number(a.ord) - Number(b.ord));

/** The run: every answer, in order. */
async function run(client: pg.Client, seed: number): Promise<unknown[]> {
  const next = random(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
  const answers: unknown[] = [];
  const held: { id: string; key: string }[] = [];
  const long: { id: string; key: string }[] = [];
  let request = 0;
  for (let round = 0; round < 40; round++) {
    const now = T0 + round * (DAY / 8); // several periods pass
    const windowNow = 1_000_000 + round * 9_000;
    const size = 1 + Math.floor(next() * 12);
    const keys = Array.from({ length: size }, () => pick(['k1', 'k1', 'k2', 'k3', 'k4', 'k4', 'k5', 'kx']));
    const amounts = keys.map(() => BigInt(Math.floor(next() * 9_000)));
    const tokens = keys.map(() => Math.floor(next() * 700));
    const rated = keys.filter((k) => k === 'k1' || k === 'k4');
    const rates = await client.query('SELECT ord, retry_after_ms FROM gateway_take_rate($1::text[], $2::integer[], $3::bigint)', [
      rated,
      rated.map((k) => (k === 'k1' ? 9 : 14)),
      windowNow,
    ]);
    answers.push(sortByOrd(rates.rows));
    if (round % 3 === 1) {
      await client.query(
        'DELETE FROM gateway_admissions WHERE id = (SELECT id FROM gateway_admissions WHERE key_id = $1 ORDER BY at_ms DESC, id DESC LIMIT 1)',
        ['k4'],
      );
    }
    if (round % 5 === 2) await client.query('SELECT gateway_trim_windows($1::bigint)', [windowNow + 30_000]);
    // A short lease now and then: the lease rule charges it before it settles.
    const lease = round % 7 === 3 ? -1 : 60_000;
    const reserved = await client.query(
      'SELECT * FROM gateway_reserve($1::text[], $2::bigint[], $3::bigint[], $4, $5::bigint, $6::text[], $7::bigint[], $8::text[], $9::bigint, $10::bigint)',
      [keys, amounts, tokens, 'node', lease, TEAMS.names, TEAMS.budgets, TEAMS.periods, now, windowNow],
    );
    answers.push(sortByOrd(reserved.rows));
    for (const row of reserved.rows) if (row.outcome === 'ok') held.push({ id: String(row.reservation_id), key: keys[row.ord - 1]! });
    // A request of a tpm key running for minutes: its held tokens outlive the window.
    const tpmHeld = held.findIndex((h) => h.key === 'k2');
    if (long.length < 2 && round % 2 === 0 && tpmHeld >= 0) long.push(...held.splice(tpmHeld, 1));
    if (round === 30) held.push(...long.splice(0));
    if (lease < 0) answers.push((await client.query('SELECT gateway_expire_leases($1::bigint, $2::bigint) AS n', [now, windowNow])).rows);
    // Settle about half of what is held (one request id twice, one unheld admission), release a few.
    const settling = held.splice(0, Math.ceil(held.length / 2));
    if (settling.length > 0) {
      const ids = settling.map((h) => h.id);
      const settleKeys = settling.map((h) => h.key);
      const requests = settling.map(() => `req_${request++}`);
      if (round % 5 === 1 && settling.length > 1) requests[1] = requests[0]!;
      if (round % 6 === 2) {
        ids.push('0');
        settleKeys.push(pick(['k2', 'k4', 'k1']));
        requests.push(`req_${request++}`);
      }
      if (round % 9 === 4) requests[0] = 'req_0'; // already recorded
      const n = ids.length;
      const settled = await client.query(
        'SELECT ord, recorded FROM gateway_settle($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::bigint[], $8::bigint[], $9::bigint[], $10::bigint[], $11::boolean[], $12::bigint, $13::bigint)',
        [
          ids,
          settleKeys,
          requests,
          Array(n).fill('m'),
          Array(n).fill('lane'),
          Array.from({ length: n }, () => Math.floor(next() * 300)),
          Array.from({ length: n }, () => Math.floor(next() * 300)),
          Array(n).fill(0),
          Array(n).fill(0),
          Array.from({ length: n }, () => BigInt(Math.floor(next() * 5_000))),
          Array(n).fill(false),
          now,
          windowNow,
        ],
      );
      answers.push(sortByOrd(settled.rows));
    }
    if (round % 4 === 0 && held.length > 0) await client.query('SELECT gateway_release($1::bigint[])', [held.splice(0, 2).map((h) => h.id)]);
  }
  answers.push(
    (await client.query('SELECT id, spent_microcents, reserved_microcents, period_start, period_spent_microcents FROM gateway_keys ORDER BY id')).rows,
    (await client.query('SELECT * FROM gateway_teams ORDER BY name')).rows,
    (await client.query('SELECT id, key_id, microcents, team, tokens FROM gateway_reservations ORDER BY id')).rows,
    (
      await client.query(
        'SELECT key_id, request_id, model, lane, input_tokens, output_tokens, cost_microcents, estimated, team, created_at FROM gateway_spend_ledger ORDER BY request_id',
      )
    ).rows,
    (await client.query('SELECT key_id, reservation_id, at_ms, tokens, held FROM gateway_token_window ORDER BY key_id, at_ms, reservation_id, tokens')).rows,
    (await client.query('SELECT key_id, at_ms FROM gateway_admissions ORDER BY key_id, at_ms')).rows,
  );
  return answers;
}

describe.skipIf(skip !== undefined)('PostgreSQL schema versions 4 and 5: each account written once per batch, the rpm window counted', () => {
  it('answers and writes exactly what version 3 did, over a seeded run of mixed batches', async () => {
    for (const seed of [1, 2, 3]) {
      const v3 = await database(3);
      const v4 = await database(POSTGRES_MIGRATIONS.length);
      try {
        const before = await run(v3, seed);
        const after = await run(v4, seed);
        expect(after).toEqual(before);
        expect(before.flat().some((row) => Number((row as { retry_after_ms?: string }).retry_after_ms) > 0)).toBe(true); // rpm refusals
        // The kept totals are the token windows' rows.
        expect((await v4.query('SELECT key_id, tokens FROM gateway_token_sums WHERE tokens > 0 ORDER BY key_id')).rows).toEqual(
          (await v4.query('SELECT key_id, sum(tokens)::bigint AS tokens FROM gateway_token_window GROUP BY key_id HAVING sum(tokens) > 0 ORDER BY key_id'))
            .rows,
        );
        // The kept counts are the windows' rows.
        expect((await v4.query('SELECT key_id, admitted FROM gateway_admission_counts WHERE admitted > 0 ORDER BY key_id')).rows).toEqual(
          (await v4.query('SELECT key_id, count(*) AS admitted FROM gateway_admissions GROUP BY key_id ORDER BY key_id')).rows,
        );
        // The run did reach the paths it is meant to compare.
        const outcomes = new Set(before.flat().map((row) => (row as { outcome?: string }).outcome));
        expect([...outcomes].sort()).toEqual(expect.arrayContaining(['budget', 'ok', 'revoked', 'team', 'tpm', 'unknown']));
        expect(before.flat().some((row) => (row as { recorded?: boolean }).recorded === false)).toBe(true);
        expect(before.flat().some((row) => Number((row as { n?: number }).n) > 0)).toBe(true); // leases charged
      } finally {
        await v3.end();
        await v4.end();
      }
    }
  }, 60_000);

  it('migrates a version 3 database with a reservation in flight, which then settles, and a full rate window, which stays full', async () => {
    const client = await database(3);
    try {
      const take = async (n: number, at: number) =>
        (
          await client.query('SELECT ord, retry_after_ms FROM gateway_take_rate($1::text[], $2::integer[], $3::bigint)', [
            Array(n).fill('k1'),
            Array(n).fill(9),
            at,
          ])
        ).rows;
      expect((await take(9, 1_000)).every((r) => r.retry_after_ms === null)).toBe(true);
      const reserved = await client.query(
        'SELECT * FROM gateway_reserve($1::text[], $2::bigint[], $3::bigint[], $4, $5::bigint, $6::text[], $7::bigint[], $8::text[], $9::bigint, $10::bigint)',
        [['k1', 'k2'], [1_000n, 2_000n], [100, 200], 'node', 60_000, TEAMS.names, TEAMS.budgets, TEAMS.periods, T0, 1_000],
      );
      expect(reserved.rows.map((r) => r.outcome)).toEqual(['ok', 'ok']);
      await migratePostgres(client);
      expect((await client.query('SELECT version FROM gateway_schema')).rows).toEqual([{ version: POSTGRES_MIGRATIONS.length }]);
      expect((await client.query('SELECT key_id, admitted FROM gateway_admission_counts')).rows).toEqual([{ key_id: 'k1', admitted: '9' }]);
      // Schema 7: the batch functions keep their generic plans (PostgreSQL 12 and later).
      expect(
        (
          await client.query(
            "SELECT proname, proconfig FROM pg_proc WHERE proname IN ('gateway_take_rate', 'gateway_reserve', 'gateway_settle', 'gateway_release') ORDER BY proname",
          )
        ).rows,
      ).toEqual(
        ['gateway_release', 'gateway_reserve', 'gateway_settle', 'gateway_take_rate'].map((proname) => ({
          proname,
          proconfig: ['plan_cache_mode=force_generic_plan'],
        })),
      );
      expect(await take(1, 2_000)).toEqual([{ ord: 1, retry_after_ms: '59000' }]);
      expect(await take(2, 61_001)).toEqual([
        { ord: 1, retry_after_ms: null },
        { ord: 2, retry_after_ms: null },
      ]);
      expect((await client.query('SELECT admitted FROM gateway_admission_counts')).rows).toEqual([{ admitted: '2' }]);
      const ids = sortByOrd(reserved.rows).map((r) => r.reservation_id);
      const settled = await client.query(
        'SELECT ord, recorded FROM gateway_settle($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::bigint[], $8::bigint[], $9::bigint[], $10::bigint[], $11::boolean[], $12::bigint, $13::bigint)',
        [ids, ['k1', 'k2'], ['a', 'b'], ['m', 'm'], ['l', 'l'], [10, 20], [1, 2], [0, 0], [0, 0], [700n, 800n], [false, false], T0, 2_000],
      );
      expect(sortByOrd(settled.rows)).toEqual([
        { ord: 1, recorded: true },
        { ord: 2, recorded: true },
      ]);
      expect((await client.query("SELECT id, spent_microcents, reserved_microcents FROM gateway_keys WHERE id IN ('k1', 'k2') ORDER BY id")).rows).toEqual([
        { id: 'k1', spent_microcents: '700', reserved_microcents: '0' },
        { id: 'k2', spent_microcents: '800', reserved_microcents: '0' },
      ]);
      expect((await client.query("SELECT spent_microcents, reserved_microcents FROM gateway_teams WHERE name = 'red'")).rows).toEqual([
        { spent_microcents: '1500', reserved_microcents: '0' },
      ]);
      expect((await client.query('SELECT reservation_id, tokens, held FROM gateway_token_window')).rows).toEqual([
        { reservation_id: ids[1], tokens: '22', held: false },
      ]);
      // The token total was filled from the held row (200) and followed the settlement (22).
      expect((await client.query('SELECT key_id, tokens FROM gateway_token_sums')).rows).toEqual([{ key_id: 'k2', tokens: '22' }]);
    } finally {
      await client.end();
    }
  }, 30_000);
});
