// GET /api/v1/admin/teams through a real admin plane over a real SQLite store: configured teams
// with their budgets (given to the store as the gateway gives them, setTeams), their keys' spend
// in the current period and over all time, what requests in flight hold and what is left; then
// teams named only on keys.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { components } from '../../generated/admin-api.ts';
import { periodStart } from '../../server/governance/budget-period.ts';
import type { LocalGovernance } from '../../server/governance/governance.ts';
import { openGovernance, tempDbPath, usage } from '../governance/support.ts';
import { expectError, expectOk, send, startAdmin, type AdminServer } from './admin-server.ts';

type TeamList = components['schemas']['TeamList'];

describe('teams', () => {
  let governance: LocalGovernance;
  let admin: AdminServer;
  beforeAll(async () => {
    governance = openGovernance(tempDbPath());
    governance.setTeams([
      { name: 'research', budgetMicrocents: 1_000_000_000n, budgetPeriod: 'monthly' },
      { name: 'platform', budgetMicrocents: null, budgetPeriod: null },
    ]);
    admin = await startAdmin(governance);
  });
  afterAll(async () => {
    await admin.close();
    governance.close();
  });

  const create = async (body: object) => expectOk<{ id: string }>(await send('POST', `${admin.url}/api/v1/admin/keys`, body), 201);
  const teams = async () => (await expectOk<TeamList>(await fetch(`${admin.url}/api/v1/admin/teams`))).data;

  it('before any spend: each configured team with its budget, nothing spent, every cent left', async () => {
    const list = await teams();
    expect(list.map((t) => t.name)).toEqual(['platform', 'research']);
    expect(list.find((t) => t.name === 'research')).toEqual({
      name: 'research',
      configured: true,
      budget_cents: 1000,
      budget_usd: '10.00000000',
      budget_period: 'monthly',
      spent_cents: 0,
      spent_usd: '0.00000000',
      lifetime_spent_cents: 0,
      lifetime_spent_usd: '0.00000000',
      reserved_cents: 0,
      reserved_usd: '0.00000000',
      remaining_cents: 1000,
      remaining_usd: '10.00000000',
      period_started_at: new Date(periodStart('monthly', Date.now())).toISOString(),
      keys: 0,
    });
    expect(list.find((t) => t.name === 'platform')).toMatchObject({
      configured: true,
      budget_cents: null,
      budget_usd: null,
      remaining_cents: null,
      period_started_at: null,
    });
  });

  it("the team's spend is its keys' spend; requests in flight hold part of what is left", async () => {
    const one = await create({ team: 'research', name: 'one' });
    const two = await create({ team: 'research', name: 'two' });
    await create({ team: 'platform' });
    const revoked = await create({ team: 'research' });
    await send('DELETE', `${admin.url}/api/v1/admin/keys/${revoked.id}`);
    const costs = [
      [one.id, 7_000n],
      [two.id, 250_000_000n],
    ] as const;
    for (const [i, [id, cost]] of costs.entries()) {
      const reservation = governance.admit({ id }, { worstCaseMicrocents: cost, priced: true, worstCaseTokens: 100 });
      await governance.settle(reservation, {
        costMicrocents: cost,
        usage: usage(1, 1),
        requestId: `team-${i}`,
        model: 'demo-echo',
        lane: 'l',
        estimated: false,
      });
    }
    const held = governance.admit({ id: one.id }, { worstCaseMicrocents: 100_000_000n, priced: true, worstCaseTokens: 100 });
    const spent = 250_007_000n;
    const research = (await teams()).find((t) => t.name === 'research')!;
    expect(research).toMatchObject({
      spent_cents: 251,
      spent_usd: '2.50007000',
      lifetime_spent_cents: 251,
      lifetime_spent_usd: '2.50007000',
      reserved_cents: 100,
      reserved_usd: '1.00000000',
      // budget − spent − held, rounded down
      remaining_cents: Math.floor(Number(1_000_000_000n - spent - 100_000_000n) / 1_000_000),
      remaining_usd: '6.49993000',
      keys: 2,
    });
    governance.release(held);
    expect((await teams()).find((t) => t.name === 'research')).toMatchObject({ reserved_cents: 0, remaining_usd: '7.49993000' });
    expect((await teams()).find((t) => t.name === 'platform')).toMatchObject({ keys: 1, spent_cents: 0 });
  });

  it('a team named only on keys (not configured) is reported after the configured ones, without a budget', async () => {
    // The admin API refuses an unconfigured team; a configuration change can leave one on keys.
    governance.createKey({ name: 'left over', team: 'archived' });
    const list = await teams();
    expect(list.map((t) => t.name)).toEqual(['platform', 'research', 'archived']);
    expect(list.at(-1)).toMatchObject({ name: 'archived', configured: false, budget_cents: null, budget_period: null, remaining_cents: null, keys: 1 });
  });
});

describe('teams without a store', () => {
  let admin: AdminServer;
  beforeAll(async () => {
    admin = await startAdmin(undefined);
  });
  afterAll(() => admin.close());

  it('answer 409 no_store', async () => {
    await expectError(await fetch(`${admin.url}/api/v1/admin/teams`), 409, 'no_store');
  });
});
