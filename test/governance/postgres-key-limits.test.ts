// Issue 18's key limits on the PostgreSQL store, on a real server, with two stores on one database
// standing for two nodes: budget periods (the clock injected, so a rollover is a step of it), team
// budgets across keys and nodes, tpm held at the worst case and settled on real tokens, PATCH and
// rotation in force on the other node, expiry, the lease rule with teams and tokens, and usage.
import type pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Admission, OwnerGovernance } from '../../server/governance/governance.ts';
import { createPostgresGovernance } from '../../server/governance/postgres/postgres-governance.ts';
import { KeyConflict } from '../../server/governance/refusals.ts';
import { GatewayFailure, type GatewayError } from '../../server/ir/error.ts';
import { postgresUnavailable, startPostgres, type PostgresServer } from '../support/postgres.ts';
import { manualClock, SILENT, usage, type ManualClock } from './support.ts';

const skip = postgresUnavailable();
let server: PostgresServer;
beforeAll(async () => {
  if (skip === undefined) server = await startPostgres();
}, 60_000);
afterAll(() => server?.stop());
const opened: OwnerGovernance[] = [];
afterEach(async () => {
  for (const g of opened.splice(0)) await g.close();
});

/** One clock for periods, expiry and stored times; another for the rate windows (as in production). */
interface Clocks {
  wall: ManualClock;
  window: ManualClock;
}
const MONDAY = Date.UTC(2026, 0, 5, 12); // Monday 5 January 2026, noon UTC

async function nodes(count: number, clocks: Clocks = { wall: manualClock(MONDAY), window: manualClock() }): Promise<OwnerGovernance[]> {
  const url = await server.createDatabase();
  const all: OwnerGovernance[] = [];
  for (let i = 0; i < count; i++) {
    const g = await createPostgresGovernance({
      url,
      secret: 's',
      log: SILENT,
      onStoreError: 'deny',
      leaseMs: 30_000,
      rateClock: clocks.window,
      wallClock: clocks.wall.now,
      periodClock: clocks.wall.now,
    });
    opened.push(g);
    all.push(g);
  }
  return all;
}

const admission = (money: bigint, tokens = 0): Admission => ({ worstCaseMicrocents: money, priced: true, worstCaseTokens: tokens });
const settlement = (requestId: string, cost: bigint, input = 100, output = 20, model = 'gpt') => ({
  costMicrocents: cost,
  usage: usage(input, output),
  requestId,
  model,
  lane: 'openai/gpt',
  estimated: false,
});

async function refusal(run: () => unknown): Promise<GatewayError> {
  try {
    await run();
  } catch (error) {
    if (error instanceof GatewayFailure) return error.error;
    throw error;
  }
  throw new Error('expected a refusal');
}

async function sql(g: OwnerGovernance, text: string, values: unknown[] = []): Promise<pg.QueryResult> {
  return (g as unknown as { pool: pg.Pool }).pool.query(text, values);
}

/** Until `check` passes (a NOTIFY is on its way to the other node), at most a second. */
async function eventually(check: () => Promise<void>): Promise<void> {
  const until = Date.now() + 1000;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > until) throw error;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
}

describe.skipIf(skip !== undefined)('key limits on the PostgreSQL store', () => {
  it('a daily budget resets at UTC midnight; lifetime spend is kept; PATCHing the period recomputes from the ledger', async () => {
    const clocks = { wall: manualClock(MONDAY), window: manualClock() };
    const [g] = await nodes(1, clocks);
    const { key } = await g!.createKey({ budgetMicrocents: 1000n, budgetPeriod: 'daily' });
    await g!.settle(await g!.admit(key, admission(600n)), settlement('a', 600n));
    expect(await refusal(() => g!.admit(key, admission(500n)))).toMatchObject({ status: 402, code: 'budget_exceeded' });
    expect(await g!.getKey(key.id)).toMatchObject({ spentMicrocents: 600n, periodSpentMicrocents: 600n, periodStartedAt: Date.UTC(2026, 0, 5) });
    clocks.wall.set(Date.UTC(2026, 0, 5, 23, 59, 59, 999));
    expect(await refusal(() => g!.admit(key, admission(500n)))).toMatchObject({ code: 'budget_exceeded' });
    clocks.wall.set(Date.UTC(2026, 0, 6)); // midnight: a new day
    expect(await g!.getKey(key.id)).toMatchObject({ spentMicrocents: 600n, periodSpentMicrocents: 0n, periodStartedAt: Date.UTC(2026, 0, 6) });
    await g!.settle(await g!.admit(key, admission(1000n)), settlement('b', 300n));
    expect(await g!.getKey(key.id)).toMatchObject({ spentMicrocents: 900n, periodSpentMicrocents: 300n });
    // Weekly: the week of Tuesday 6 January began on Monday 5 January, and holds both settlements.
    const weekly = await g!.updateKey(key.id, { budgetPeriod: 'weekly' });
    expect(weekly).toMatchObject({ budgetPeriod: 'weekly', periodSpentMicrocents: 900n, periodStartedAt: Date.UTC(2026, 0, 5) });
    expect(await refusal(() => g!.admit(key, admission(101n)))).toMatchObject({ code: 'budget_exceeded' });
    await g!.admit(key, admission(100n));
    clocks.wall.set(Date.UTC(2026, 0, 12)); // the next Monday
    await g!.admit(key, admission(900n)); // 100 still held across the rollover, 900 of the new week
    expect(await refusal(() => g!.admit(key, admission(1n)))).toMatchObject({ code: 'budget_exceeded' });
    const lifetime = await g!.updateKey(key.id, { budgetPeriod: null });
    expect(lifetime).toMatchObject({ budgetPeriod: null, periodSpentMicrocents: 900n, periodStartedAt: null, reservedMicrocents: 1000n });
  });

  it('a team budget holds across keys and nodes: exactly as many concurrent requests as it fits', async () => {
    const [a, b] = await nodes(2);
    for (const g of [a!, b!]) g.setTeams([{ name: 'ml', budgetMicrocents: 10n * 777n, budgetPeriod: 'monthly' }]);
    const k1 = (await a!.createKey({ team: 'ml' })).key;
    const k2 = (await b!.createKey({ team: 'ml', budgetMicrocents: 1_000_000n })).key;
    const results = await Promise.allSettled(Array.from({ length: 120 }, (_, i) => (i % 2 === 0 ? a! : b!).admit(i % 3 === 0 ? k1 : k2, admission(777n))));
    const admitted = results.filter((r) => r.status === 'fulfilled');
    expect(admitted).toHaveLength(10);
    const refused = results.filter((r) => r.status === 'rejected').map((r) => ((r as PromiseRejectedResult).reason as GatewayFailure).error);
    expect(new Set(refused.map((e) => `${e.status} ${e.code}`))).toEqual(new Set(['402 team_budget_exceeded']));
    expect(refused[0]!.message).toContain('team "ml"');
    const reservations = admitted.map((r) => (r as PromiseFulfilledResult<Awaited<ReturnType<OwnerGovernance['admit']>>>).value);
    for (const [i, reservation] of reservations.entries()) await (i % 2 ? a! : b!).settle(reservation, settlement(`t${i}`, 700n));
    const [ml] = await a!.listTeams();
    expect(ml).toMatchObject({ name: 'ml', configured: true, keys: 2, spentMicrocents: 7000n, periodSpentMicrocents: 7000n, reservedMicrocents: 0n });
    expect(ml!.periodStartedAt).toBe(Date.UTC(2026, 0, 1));
    const rows = await sql(a!, 'SELECT DISTINCT team FROM gateway_spend_ledger');
    expect(rows.rows).toEqual([{ team: 'ml' }]);
    // A bigger team budget is in force on the node configured with it at its next request.
    await a!.admit(k1, admission(770n));
    expect(await refusal(() => a!.admit(k1, admission(8n)))).toMatchObject({ code: 'team_budget_exceeded' });
    a!.setTeams([{ name: 'ml', budgetMicrocents: 8000n, budgetPeriod: 'monthly' }]);
    await a!.admit(k1, admission(8n));
    // A key's own budget is checked first.
    const small = (await a!.createKey({ team: 'ml', budgetMicrocents: 5n })).key;
    expect(await refusal(() => a!.admit(small, admission(6n)))).toMatchObject({ code: 'budget_exceeded' });
    // A team named only on a key has no budget, and is listed after the configured ones.
    await a!.createKey({ team: 'adhoc' });
    expect((await a!.listTeams()).map((t) => [t.name, t.configured, t.budgetMicrocents])).toEqual([
      ['ml', true, 8000n],
      ['adhoc', false, null],
    ]);
  });

  it('tpm: held at the worst case, settled on real tokens from the admission time, released; 429 with Retry-After', async () => {
    const clocks = { wall: manualClock(MONDAY), window: manualClock(0) };
    const [a, b] = await nodes(2, clocks);
    const { key } = await a!.createKey({ tpm: 1000 });
    const first = await a!.admit(key, admission(0n, 600));
    const limited = await refusal(() => b!.admit(key, admission(0n, 500)));
    expect(limited).toMatchObject({ status: 429, code: 'tokens_per_minute_exceeded', retryAfterSeconds: 60 }); // the 600 held leave the window at t = 60 s
    clocks.window.advance(10_000);
    await a!.settle(first, settlement('s1', 0n, 100, 20)); // 120 real tokens, counted from t = 0
    const second = await b!.admit(key, admission(0n, 880));
    const third = await refusal(() => a!.admit(key, admission(0n, 120)));
    expect(third).toMatchObject({ code: 'tokens_per_minute_exceeded', retryAfterSeconds: 50 }); // the 120 leave at t = 60 s
    await b!.release(second);
    await a!.admit(key, admission(0n, 880));
    expect(await refusal(() => a!.admit(key, admission(0n, 1001)))).toMatchObject({ code: 'tokens_per_minute_exceeded', retryAfterSeconds: 60 });
    expect((await refusal(() => a!.admit(key, admission(0n, 1001)))).message).toContain('more than this key');
    clocks.window.advance(50_000);
    await a!.admit(key, admission(0n, 120));
    // Concurrent from both nodes: exactly as many as the window holds.
    const { key: burst } = await b!.createKey({ tpm: 1000 });
    const results = await Promise.allSettled(Array.from({ length: 60 }, (_, i) => (i % 2 ? a! : b!).admit(burst, admission(0n, 100))));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(10);
  });

  it('a refusal after the rate gives the rate back (budget, team and tpm alike)', async () => {
    const [g] = await nodes(1);
    g!.setTeams([{ name: 'ops', budgetMicrocents: 10n, budgetPeriod: null }]);
    const { key } = await g!.createKey({ rpm: 1, tpm: 100, team: 'ops' });
    expect(await refusal(() => g!.admit(key, admission(11n, 1)))).toMatchObject({ code: 'team_budget_exceeded' });
    expect(await refusal(() => g!.admit(key, admission(1n, 101)))).toMatchObject({ code: 'tokens_per_minute_exceeded' });
    await g!.admit(key, admission(10n, 100));
    expect(await refusal(() => g!.admit(key, admission(0n, 0)))).toMatchObject({ code: 'rate_limited' });
  });

  it('PATCH on one node is in force on the other at its next request; null clears', async () => {
    const [a, b] = await nodes(2);
    const { key, secret } = await a!.createKey({ name: 'k', budgetMicrocents: 100n, models: ['cheap'], metadata: { cost_centre: 'r&d' } });
    expect(await b!.authenticatePresented(secret)).toMatchObject({ models: ['cheap'], metadata: { cost_centre: 'r&d' }, selfServe: false });
    expect(await refusal(() => b!.admit(key, admission(200n)))).toMatchObject({ code: 'budget_exceeded' });
    const updated = await a!.updateKey(key.id, { budgetMicrocents: 1000n, models: null, metadata: { team: 'x' }, name: null, tpm: 50 });
    expect(updated).toMatchObject({ budgetMicrocents: 1000n, models: null, metadata: { team: 'x' }, name: null, tpm: 50 });
    await eventually(async () => {
      expect(await b!.authenticatePresented(secret)).toMatchObject({ budgetMicrocents: 1000n, models: null, metadata: { team: 'x' }, tpm: 50 });
    });
    await b!.admit(key, admission(200n, 50));
    expect(await a!.updateKey('key_nope', { name: 'x' })).toBeUndefined();
    expect(await a!.updateKey(key.id, {})).toMatchObject({ id: key.id, tpm: 50 });
    await expect(Promise.resolve().then(() => a!.updateKey(key.id, { tpm: 0 }))).rejects.toThrow(RangeError);
  });

  it('expiry: 401 key_expired from that moment, on every node; PATCH may move it', async () => {
    const clocks = { wall: manualClock(MONDAY), window: manualClock() };
    const [a, b] = await nodes(2, clocks);
    const { key, secret } = await a!.createKey({ expiresAt: MONDAY + 60_000 });
    await b!.authenticatePresented(secret);
    clocks.wall.advance(60_000);
    expect(await refusal(() => b!.authenticatePresented(secret))).toMatchObject({ status: 401, code: 'key_expired' });
    expect(await refusal(() => a!.admit(key, admission(0n)))).toMatchObject({ code: 'key_expired' });
    await a!.updateKey(key.id, { expiresAt: null });
    await eventually(async () => {
      await b!.authenticatePresented(secret);
    });
  });

  it('rotation: a new secret for the same key; the old one works on every node until its grace ends, then is unknown', async () => {
    const clocks = { wall: manualClock(MONDAY), window: manualClock() };
    const [a, b] = await nodes(2, clocks);
    const created = await a!.createKey({ name: 'rotated', budgetMicrocents: 5000n });
    await a!.settle(await a!.admit(created.key, admission(100n)), settlement('r', 100n));
    await b!.authenticatePresented(created.secret); // cached on b
    const rotated = (await a!.rotateKey(created.key.id, 30))!;
    expect(rotated.secret).not.toBe(created.secret);
    expect(rotated.key).toMatchObject({
      id: created.key.id,
      spentMicrocents: 100n,
      budgetMicrocents: 5000n,
      rotatedAt: MONDAY,
      previousSecretUntil: MONDAY + 30_000,
    });
    expect(rotated.key.prefix).toBe(rotated.secret.slice(0, rotated.key.prefix.length));
    await eventually(async () => {
      expect((await b!.authenticatePresented(rotated.secret)).id).toBe(created.key.id);
    });
    expect((await b!.authenticatePresented(created.secret)).id).toBe(created.key.id);
    clocks.wall.advance(30_000);
    for (const g of [a!, b!]) expect(await refusal(() => g.authenticatePresented(created.secret))).toMatchObject({ code: 'invalid_api_key' });
    // Rotating again ends the older grace: only one previous secret is kept.
    const again = (await b!.rotateKey(created.key.id, 0))!;
    await eventually(async () => {
      expect(await refusal(() => a!.authenticatePresented(rotated.secret))).toMatchObject({ code: 'invalid_api_key' });
    });
    expect((await a!.authenticatePresented(again.secret)).id).toBe(created.key.id);
    expect(await a!.rotateKey('key_nope', 0)).toBeUndefined();
    await a!.revokeKey(created.key.id);
    await expect(Promise.resolve().then(() => a!.rotateKey(created.key.id, 0))).rejects.toMatchObject({ code: 'key_revoked' });
    const selfServe = await a!.issueIdentityKey(
      { issuer: 'https://idp', subject: 'ann', team: 'ml', name: 'self-serve (ml)', owner: 'ann', budgetMicrocents: 100n, rpm: null },
      (generation) => `gwk_derived_for_ann_${generation}_0123456789abcdefghijklmnop`,
    );
    expect(selfServe.key).toMatchObject({ team: 'ml', selfServe: true });
    const conflict = await Promise.resolve()
      .then(() => a!.rotateKey(selfServe.key.id, 0))
      .catch((e: unknown) => e);
    expect(conflict).toBeInstanceOf(KeyConflict);
    expect(conflict).toMatchObject({ code: 'self_serve_key' });
  });

  it('the lease rule charges a team and keeps the tokens at the worst case; a late settlement puts the real figures in place', async () => {
    const clocks = { wall: manualClock(MONDAY), window: manualClock(0) };
    const [g] = await nodes(1, clocks);
    g!.setTeams([{ name: 'ml', budgetMicrocents: 100_000n, budgetPeriod: 'daily' }]);
    const { key } = await g!.createKey({ team: 'ml', tpm: 1000, budgetPeriod: 'daily', budgetMicrocents: 100_000n });
    const lost = await g!.admit(key, admission(30_000n, 700));
    const late = await g!.admit(key, admission(20_000n, 300));
    await sql(g!, "UPDATE gateway_reservations SET lease_until = clock_timestamp() - interval '1 second'");
    await sql(g!, 'SELECT gateway_expire_leases($1::bigint, 0)', [MONDAY]);
    expect(await g!.getKey(key.id)).toMatchObject({ spentMicrocents: 50_000n, periodSpentMicrocents: 50_000n, reservedMicrocents: 0n });
    expect((await g!.listTeams())[0]).toMatchObject({ spentMicrocents: 50_000n, periodSpentMicrocents: 50_000n, reservedMicrocents: 0n });
    expect(await refusal(() => g!.admit(key, admission(0n, 1)))).toMatchObject({ code: 'tokens_per_minute_exceeded' });
    await g!.settle(late, settlement('late', 1_000n, 90, 10));
    expect(await g!.getKey(key.id)).toMatchObject({ spentMicrocents: 31_000n, periodSpentMicrocents: 31_000n });
    expect((await g!.listTeams())[0]).toMatchObject({ spentMicrocents: 31_000n, periodSpentMicrocents: 31_000n });
    await g!.admit(key, admission(0n, 200)); // 700 + 100 real + 200
    expect(await refusal(() => g!.admit(key, admission(0n, 1)))).toMatchObject({ code: 'tokens_per_minute_exceeded' });
    await g!.release(lost); // its node says it was not served after all
    expect(await g!.getKey(key.id)).toMatchObject({ spentMicrocents: 1_000n, reservedMicrocents: 0n });
    await g!.admit(key, admission(0n, 700));
    // The team's reserved and spent figures equal the ledger's.
    const team = (await sql(g!, "SELECT spent_microcents::text AS spent FROM gateway_teams WHERE name = 'ml'")).rows[0];
    expect(team.spent).toBe('1000');
  });

  it('mixed batches over many keys and teams from two nodes neither deadlock nor drift: every counter equals its ledger', { timeout: 60_000 }, async () => {
    const [a, b] = await nodes(2);
    const budgets = ['t1', 't2', 't3'].map((name) => ({ name, budgetMicrocents: 50_000n, budgetPeriod: name === 't2' ? ('daily' as const) : null }));
    for (const g of [a!, b!]) g.setTeams(budgets);
    const keys = await Promise.all(Array.from({ length: 6 }, (_, i) => a!.createKey({ team: `t${(i % 3) + 1}`, tpm: 100_000, budgetPeriod: 'weekly' })));
    // Keys change teams mid-run too: a reservation releases the team it held, spend goes to the new one.
    const moves = keys.slice(0, 2).map((k, i) => b!.updateKey(k.key.id, { team: `t${((i + 1) % 3) + 1}` }));
    // How many of each: how many the budgets refuse depends on how the requests overlap (a
    // reservation holds its worst case while in flight), so the ledger is checked against the count.
    const outcome = { settled: 0, released: 0, refused: 0 };
    const work = Array.from({ length: 240 }, async (_, i) => {
      const g = i % 2 ? a! : b!;
      const key = keys[(i * 7) % keys.length]!.key;
      try {
        const reservation = await g.admit(key, admission(1_000n, 50));
        if (i % 4 === 0) {
          await g.release(reservation);
          outcome.released++;
        } else if (await g.settle(reservation, settlement(`mix-${i}`, BigInt(100 + i)))) outcome.settled++;
      } catch (error) {
        if (!(error instanceof GatewayFailure) || error.error.status !== 402) throw error;
        outcome.refused++;
      }
    });
    await Promise.all([...work, ...moves]);
    const drift = await sql(
      a!,
      `SELECT 'key ' || k.id AS account FROM gateway_keys k
         WHERE k.reserved_microcents <> 0 OR k.spent_microcents <> (SELECT coalesce(sum(cost_microcents), 0) FROM gateway_spend_ledger WHERE key_id = k.id)
           OR k.period_start IS NULL
           OR k.period_spent_microcents <> (SELECT coalesce(sum(cost_microcents), 0) FROM gateway_spend_ledger WHERE key_id = k.id AND created_at >= k.period_start)
       UNION ALL
       SELECT 'team ' || t.name FROM gateway_teams t
         WHERE t.reserved_microcents <> 0 OR t.spent_microcents <> (SELECT coalesce(sum(cost_microcents), 0) FROM gateway_spend_ledger WHERE team = t.name)
           OR (t.period_start IS NOT NULL
               AND t.period_spent_microcents <> (SELECT coalesce(sum(cost_microcents), 0) FROM gateway_spend_ledger WHERE team = t.name AND created_at >= t.period_start))
       UNION ALL
       SELECT 'window ' || count(*) FROM gateway_token_window WHERE held HAVING count(*) > 0`,
    );
    expect(drift.rows).toEqual([]);
    expect(Number((await sql(a!, 'SELECT count(*) AS n FROM gateway_spend_ledger')).rows[0].n)).toBe(outcome.settled);
    expect(outcome.settled + outcome.refused + outcome.released).toBe(240); // every settlement recorded
    expect(outcome.settled).toBeGreaterThan(20); // the mix was exercised, not refused whole
  });

  it('usage: the ledger summed and grouped by day, model, key and team over [from, to)', async () => {
    const clocks = { wall: manualClock(MONDAY), window: manualClock() };
    const [g] = await nodes(1, clocks);
    const a = (await g!.createKey({ team: 'ml' })).key;
    const b = (await g!.createKey({})).key;
    await g!.settle(await g!.admit(a, admission(0n)), settlement('1', 10n, 5, 1, 'gpt'));
    await g!.settle(await g!.admit(b, admission(0n)), settlement('2', 20n, 7, 2, 'claude'));
    clocks.wall.advance(86_400_000);
    await g!.settle(await g!.admit(a, admission(0n)), settlement('3', 40n, 11, 3, 'gpt'));
    const byDay = await g!.usage({ groupBy: ['day'] });
    expect(byDay.rows.map((r) => [r.day, r.requests, r.costMicrocents, r.inputTokens, r.outputTokens])).toEqual([
      ['2026-01-05', 2, 30n, 12, 3],
      ['2026-01-06', 1, 40n, 11, 3],
    ]);
    expect(byDay.total).toMatchObject({ requests: 3, costMicrocents: 70n });
    const byTeamModel = await g!.usage({ groupBy: ['team', 'model'] });
    expect(byTeamModel.rows.map((r) => [r.team, r.model, r.requests])).toEqual([
      ['ml', 'gpt', 2],
      [null, 'claude', 1],
    ]);
    const ofKey = await g!.usage({ groupBy: ['key'], keyId: a.id, fromMs: MONDAY + 1, toMs: MONDAY + 86_400_001 });
    expect(ofKey.rows).toEqual([{ keyId: a.id, requests: 1, inputTokens: 11, outputTokens: 3, cacheReadTokens: 0, cacheWriteTokens: 0, costMicrocents: 40n }]);
    expect((await g!.usage({ groupBy: [] })).rows).toHaveLength(1);
  });
});
