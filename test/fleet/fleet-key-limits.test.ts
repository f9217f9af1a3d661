// Issue 18's limits across three gateway processes on one PostgreSQL database: a period budget, a
// team budget (its keys created on different nodes) and a tpm hold exactly however concurrent
// requests spread over the nodes, and a key PATCHed or rotated on one node is in force on the
// others within a second.
import OpenAI from 'openai';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { microcentsToUsd } from '../../server/shared/money.ts';
import { startFleet, type Fleet } from '../support/gateway-fleet.ts';
import { upstreamGate } from '../support/mock-upstream.ts';
import { postgresUnavailable, startPostgres, type PostgresServer } from '../support/postgres.ts';
import { ANSWER, CHAT, COST_MICROCENTS, keyFigures, REAL_TOKENS, WORST_MICROCENTS, WORST_TOKENS } from './fleet-support.ts';

const skip = postgresUnavailable();
let server: PostgresServer;
let fleet: Fleet | undefined;
let url: string;
beforeAll(async () => {
  if (skip === undefined) server = await startPostgres();
}, 60_000);
afterAll(() => server?.stop());
afterEach(async () => {
  await fleet?.close();
  fleet = undefined;
});

/** 10.5 worst cases of CHAT, in whole cents: room for exactly 10 requests in flight. */
const TEN_AND_A_HALF_CENTS = Number((WORST_MICROCENTS * 105n) / 10n / 1_000_000n);

async function threeNodes(extraYaml?: string): Promise<Fleet> {
  url = await server.createDatabase();
  fleet = await startFleet(url, { nodes: 3, ...(extraYaml !== undefined && { extraYaml }) });
  return fleet;
}

interface Outcome {
  status: number;
  code?: string | null | undefined;
  retryAfter?: string | null | undefined;
}

async function outcomeOf(request: Promise<unknown>): Promise<Outcome> {
  try {
    await request;
    return { status: 200 };
  } catch (error) {
    if (error instanceof OpenAI.APIError && error.status !== undefined)
      return { status: error.status, code: error.code, retryAfter: error.headers?.get('retry-after') };
    throw error;
  }
}

/**
 * `count` concurrent CHATs over the three nodes with these secrets (round robin); the upstream
 * answers only once all but `admitted` were refused, so no early settlement frees anything.
 */
async function burst(f: Fleet, secrets: string[], count: number, admitted: number): Promise<Outcome[]> {
  const allDecided = upstreamGate(60_000);
  // Exactly as many answers as admissions: none is left over to settle the next burst's early.
  for (let i = 0; i < admitted; i++) f.upstream.enqueue({ headers: { 'content-type': 'application/json' }, events: [ANSWER], waitFor: allDecided.opened });
  let refused = 0;
  return Promise.all(
    Array.from({ length: count }, (_, i) =>
      outcomeOf(f.client(i % 3, secrets[i % secrets.length]!).chat.completions.create(CHAT)).then((outcome) => {
        if (outcome.status !== 200 && ++refused === count - admitted) allDecided.open();
        return outcome;
      }),
    ),
  );
}

async function sql(text: string, values: unknown[] = []): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await client.query(text, values);
  } finally {
    await client.end();
  }
}

/** Polls `attempt` on each of `nodes` until it resolves true; the milliseconds each took (Infinity: > 5 s). */
async function inForceAfter(nodes: number[], attempt: (node: number) => Promise<boolean>): Promise<number[]> {
  const t0 = performance.now();
  return Promise.all(
    nodes.map(async (node) => {
      while (performance.now() - t0 < 5000) {
        if (await attempt(node)) return performance.now() - t0;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return Infinity;
    }),
  );
}

describe.skipIf(skip !== undefined)('key limits across three gateways on one database', () => {
  it('a daily budget: 150 concurrent over the three, exactly 10 admitted; the next day starts empty', { timeout: 90_000 }, async () => {
    const f = await threeNodes();
    const created = await f.admin(0, 'POST', '/keys', { name: 'daily', budget_cents: TEN_AND_A_HALF_CENTS, budget_period: 'daily' });
    expect(created.status).toBe(201);
    const outcomes = await burst(f, [created.body.secret], 150, 10);
    expect(outcomes.filter((o) => o.status === 200)).toHaveLength(10);
    expect(outcomes.filter((o) => o.status === 402 && o.code === 'budget_exceeded')).toHaveLength(140);
    const figures = await keyFigures(url, created.body.id);
    expect(figures).toMatchObject({ spent: 10n * COST_MICROCENTS, reserved: 0n, reservations: 0, settledRows: 10 });
    const view = await f.admin(2, 'GET', `/keys/${created.body.id}`);
    expect(view.body).toMatchObject({ budget_period: 'daily', spent_cents: 1, lifetime_spent_cents: 1 });
    // Let the day be yesterday: the ledger rows move back a day, as does the period the key's
    // counter was for. Every node's next request re-bases on the ledger: nothing spent today.
    await sql('UPDATE gateway_spend_ledger SET created_at = created_at - 86400000');
    await sql('UPDATE gateway_keys SET period_start = period_start - 86400000 WHERE id = $1', [created.body.id]);
    for (const node of [0, 1, 2]) {
      f.upstream.enqueue({ headers: { 'content-type': 'application/json' }, events: [ANSWER] });
      expect((await outcomeOf(f.client(node, created.body.secret).chat.completions.create(CHAT))).status).toBe(200);
    }
    const after = await f.admin(2, 'GET', `/keys/${created.body.id}`);
    expect(after.body).toMatchObject({ spent_usd: microcentsToUsd(3n * COST_MICROCENTS), lifetime_spent_usd: microcentsToUsd(13n * COST_MICROCENTS) });
    expect((await keyFigures(url, created.body.id)).spent).toBe(13n * COST_MICROCENTS);
    const today = await sql('SELECT period_spent_microcents::text AS p FROM gateway_keys WHERE id = $1', [created.body.id]);
    expect(BigInt(today.rows[0].p)).toBe(3n * COST_MICROCENTS);
  });

  it('a team budget over two keys created on different nodes: 150 concurrent, exactly 10 admitted, 402 team_budget_exceeded', { timeout: 90_000 }, async () => {
    // A team with a budget and no self-serve keys (no child_default).
    const f = await threeNodes(`teams:\n  ml: { budget_cents: ${TEN_AND_A_HALF_CENTS}, budget_period: monthly }\n`);
    const first = await f.admin(0, 'POST', '/keys', { name: 'ml-1', team: 'ml' });
    const second = await f.admin(1, 'POST', '/keys', { name: 'ml-2', team: 'ml', budget_cents: 100_000 });
    expect([first.status, second.status]).toEqual([201, 201]);
    const outcomes = await burst(f, [first.body.secret, second.body.secret], 150, 10);
    expect(outcomes.filter((o) => o.status === 200)).toHaveLength(10);
    expect(outcomes.filter((o) => o.status === 402 && o.code === 'team_budget_exceeded')).toHaveLength(140);
    expect(f.upstream.requests).toHaveLength(10);
    const spent = (await keyFigures(url, first.body.id)).spent + (await keyFigures(url, second.body.id)).spent;
    expect(spent).toBe(10n * COST_MICROCENTS);
    const ledger = await sql("SELECT count(*)::int AS n FROM gateway_spend_ledger WHERE team = 'ml'");
    expect(ledger.rows[0].n).toBe(10);
    const teams = await f.admin(2, 'GET', '/teams');
    expect(teams.status).toBe(200);
    const ml = (teams.body.data ?? teams.body).find((t: { name: string }) => t.name === 'ml');
    expect(ml).toMatchObject({ name: 'ml', keys: 2, reserved_cents: 0 });
  });

  it('tpm: 60 concurrent over the three, exactly as many held as the window fits, 429 with Retry-After; real tokens free the rest', {
    timeout: 90_000,
  }, async () => {
    const f = await threeNodes();
    const tpm = 10 * WORST_TOKENS + WORST_TOKENS / 2;
    const created = await f.admin(2, 'POST', '/keys', { name: 'tpm', tpm: Math.floor(tpm) });
    expect(created.status).toBe(201);
    const outcomes = await burst(f, [created.body.secret], 60, 10);
    expect(outcomes.filter((o) => o.status === 200)).toHaveLength(10);
    const limited = outcomes.filter((o) => o.status === 429);
    expect(limited).toHaveLength(50);
    for (const o of limited) {
      expect(o.code).toBe('tokens_per_minute_exceeded');
      expect(Number(o.retryAfter)).toBeGreaterThanOrEqual(1);
      expect(Number(o.retryAfter)).toBeLessThanOrEqual(60);
    }
    // Settled at 17 real tokens each, the ten leave room for ten more worst cases less 170 tokens.
    const window = await sql('SELECT coalesce(sum(tokens), 0)::int AS n, count(*) FILTER (WHERE held)::int AS held FROM gateway_token_window');
    expect(window.rows[0]).toEqual({ n: 10 * REAL_TOKENS, held: 0 });
    const again = await burst(f, [created.body.secret], 12, 10);
    expect(again.filter((o) => o.status === 200)).toHaveLength(10);
  });

  it('a key PATCHed on one node is in force on the others within a second; so is a rotation', { timeout: 60_000 }, async () => {
    const f = await threeNodes();
    const created = await f.admin(0, 'POST', '/keys', { name: 'changing' });
    for (const node of [1, 2]) await f.client(node, created.body.secret).models.list(); // cached on every node
    const patched = await f.admin(0, 'PATCH', `/keys/${created.body.id}`, { budget_cents: 0 });
    expect(patched.status).toBe(200);
    const narrowed = await inForceAfter([1, 2], async (node) => {
      const outcome = await outcomeOf(f.client(node, created.body.secret).chat.completions.create({ ...CHAT, max_completion_tokens: 5 }));
      return outcome.status === 402 && outcome.code === 'budget_exceeded';
    });
    for (const ms of narrowed) expect(ms).toBeLessThan(1000);

    const rotated = await f.admin(1, 'POST', `/keys/${created.body.id}/rotate`, { grace_seconds: 0 });
    expect(rotated.status).toBe(200);
    const oldRefused = await inForceAfter([0, 2], async (node) => {
      const outcome = await outcomeOf(f.client(node, created.body.secret).models.list());
      return outcome.status === 401 && outcome.code === 'invalid_api_key';
    });
    for (const ms of oldRefused) expect(ms).toBeLessThan(1000);
    for (const node of [0, 2]) expect((await outcomeOf(f.client(node, rotated.body.secret).models.list())).status).toBe(200);
  });
});
