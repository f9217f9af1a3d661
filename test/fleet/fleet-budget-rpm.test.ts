// Three gateway processes on one PostgreSQL database: a budget and an rpm are exact across the
// fleet however the requests spread over the nodes, and a revocation on one node is in force on
// the others within a second.
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFleet, type Fleet } from '../support/gateway-fleet.ts';
import { upstreamGate } from '../support/mock-upstream.ts';
import { postgresUnavailable, startPostgres, type PostgresServer } from '../support/postgres.ts';
import { ANSWER, CHAT, COST_MICROCENTS, keyFigures, WORST_MICROCENTS } from './fleet-support.ts';

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

async function threeNodes(): Promise<Fleet> {
  url = await server.createDatabase();
  fleet = await startFleet(url, { nodes: 3 });
  return fleet;
}

async function statusOf(request: Promise<unknown>): Promise<number> {
  try {
    await request;
    return 200;
  } catch (error) {
    if (error instanceof OpenAI.APIError && error.status !== undefined) return error.status;
    throw error;
  }
}

describe.skipIf(skip !== undefined)('three gateways on one database', () => {
  it('300 concurrent requests over the three against a budget that fits 10: exactly 10 reach the upstream, spend = count × price', {
    timeout: 90_000,
  }, async () => {
    const f = await threeNodes();
    const budgetCents = Number((WORST_MICROCENTS * 105n) / 10n / 1_000_000n); // 10.5 worst cases, in whole cents
    const created = await f.admin(0, 'POST', '/keys', { name: 'fleet-budget', budget_cents: budgetCents });
    expect(created.status).toBe(201);
    // The upstream answers only once every other request was refused: no early settlement can
    // free budget, however loaded the machine.
    const allDecided = upstreamGate(60_000);
    for (let i = 0; i < 12; i++) f.upstream.enqueue({ headers: { 'content-type': 'application/json' }, events: [ANSWER], waitFor: allDecided.opened });
    let refused = 0;
    const clients = [0, 1, 2].map((n) => f.client(n, created.body.secret));
    const statuses = await Promise.all(
      Array.from({ length: 300 }, (_, i) =>
        statusOf(clients[i % 3]!.chat.completions.create(CHAT)).then((status) => {
          if (status === 402 && ++refused === 290) allDecided.open();
          return status;
        }),
      ),
    );
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 402)).toHaveLength(290);
    expect(f.upstream.requests).toHaveLength(10);
    const figures = await keyFigures(url, created.body.id);
    expect(figures).toMatchObject({
      spent: BigInt(f.upstream.requests.length) * COST_MICROCENTS,
      reserved: 0n,
      reservations: 0,
      settledRows: 10,
      leaseRows: 0,
    });
    expect(figures.ledgerTotal).toBe(figures.spent);
  });

  it('rpm: 20 across the three: exactly 20 of 60 admitted in the window, the rest 429 with Retry-After', { timeout: 60_000 }, async () => {
    const f = await threeNodes();
    const created = await f.admin(1, 'POST', '/keys', { name: 'fleet-rpm', rpm: 20 });
    const clients = [0, 1, 2].map((n) => f.client(n, created.body.secret));
    const outcomes = await Promise.all(
      Array.from({ length: 60 }, async (_, i) => {
        try {
          await clients[i % 3]!.chat.completions.create({ ...CHAT, max_completion_tokens: 5 });
          return { status: 200 };
        } catch (error) {
          if (!(error instanceof OpenAI.APIError)) throw error;
          return { status: error.status, retryAfter: error.headers?.get('retry-after'), code: error.code };
        }
      }),
    );
    expect(outcomes.filter((o) => o.status === 200)).toHaveLength(20);
    const limited = outcomes.filter((o) => o.status === 429);
    expect(limited).toHaveLength(40);
    for (const o of limited) {
      expect(o.code).toBe('rate_limited');
      expect(Number(o.retryAfter)).toBeGreaterThanOrEqual(1);
      expect(Number(o.retryAfter)).toBeLessThanOrEqual(60);
    }
    expect(f.upstream.requests).toHaveLength(20);
  });

  it('a key revoked on one node is refused on the other two within one second; a key created on one works on all', { timeout: 60_000 }, async () => {
    const f = await threeNodes();
    const created = await f.admin(0, 'POST', '/keys', { name: 'fleet-revoke' });
    for (const node of [1, 2]) await f.client(node, created.body.secret).chat.completions.create({ ...CHAT, max_completion_tokens: 5 });
    const revoked = await f.admin(0, 'DELETE', `/keys/${created.body.id}`);
    expect(revoked.status).toBe(200);
    const t0 = performance.now();
    const refusedAfter = await Promise.all(
      [1, 2].map(async (node) => {
        const client = f.client(node, created.body.secret);
        for (;;) {
          try {
            // Authentication alone (no reservation in the database): the node's key cache, which
            // the revoking node's NOTIFY refreshes, must already know.
            await client.models.list();
          } catch (error) {
            if (error instanceof OpenAI.AuthenticationError) {
              expect(error.code).toBe('key_revoked');
              return performance.now() - t0;
            }
            throw error;
          }
          if (performance.now() - t0 > 5000) return Infinity;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }),
    );
    for (const ms of refusedAfter) expect(ms).toBeLessThan(1000);
  });
});
