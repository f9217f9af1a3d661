// Part of the key-limits suite (key-limits-behaviour.ts): budgets per calendar period (UTC) and
// team budgets over their keys, each exact under many concurrent admissions.
import { describe, expect, it } from 'vitest';
import type { BudgetPeriod } from '../../server/governance/budget-period.ts';
import { admission, admitted, at, keyState, refusal, settle, spend } from './key-limits-support.ts';
import type { StoreUnderTest } from './store-under-test.ts';
import { manualClock } from './support.ts';

interface Rollover {
  readonly period: BudgetPeriod;
  /** When the spend happens. */
  readonly start: string;
  readonly startedAt: string;
  /** Still the same period (a smaller period's boundary lies between). */
  readonly late: string;
  /** The next period's first instant. */
  readonly boundary: string;
}

const ROLLOVERS: readonly Rollover[] = [
  {
    period: 'daily',
    start: '2026-06-02T00:30:00.000Z',
    startedAt: '2026-06-02T00:00:00.000Z',
    late: '2026-06-02T23:59:59.999Z',
    boundary: '2026-06-03T00:00:00.000Z',
  },
  // Monday 8 June to Sunday 14 June: the days between do not reset a weekly budget.
  {
    period: 'weekly',
    start: '2026-06-09T10:00:00.000Z',
    startedAt: '2026-06-08T00:00:00.000Z',
    late: '2026-06-14T23:59:59.999Z',
    boundary: '2026-06-15T00:00:00.000Z',
  },
  // The weeks between do not reset a monthly budget.
  {
    period: 'monthly',
    start: '2026-06-10T10:00:00.000Z',
    startedAt: '2026-06-01T00:00:00.000Z',
    late: '2026-06-30T23:59:59.999Z',
    boundary: '2026-07-01T00:00:00.000Z',
  },
];

export function periodAndTeamBehaviour(store: StoreUnderTest): void {
  describe('budgets per period', () => {
    it.each(ROLLOVERS)('$period: the spend resets at the boundary instant, lifetime spend is kept, and a reopen sums the period from the ledger', async (r) => {
      const time = manualClock(at(r.start));
      const location = await store.fresh();
      const governance = await store.open(location, { time });
      const { key } = await governance.createKey({ budgetMicrocents: 1000n, budgetPeriod: r.period });
      await spend(governance, key, 800n);
      time.set(at(r.late));
      expect(await refusal(() => governance.admit(key, admission(201n)))).toMatchObject({
        status: 402,
        code: 'budget_exceeded',
        message: expect.stringContaining(`it starts again at ${new Date(at(r.boundary)).toISOString()}: do not retry before then`),
      });
      expect(await keyState(governance, key.id)).toMatchObject({ spentMicrocents: 800n, periodSpentMicrocents: 800n, periodStartedAt: at(r.startedAt) });
      await governance.close();

      const before = await store.open(location, { time });
      expect(await keyState(before, key.id)).toMatchObject({ spentMicrocents: 800n, periodSpentMicrocents: 800n });
      await before.close();

      time.set(at(r.boundary));
      const after = await store.open(location, { time });
      expect(await keyState(after, key.id)).toMatchObject({ spentMicrocents: 800n, periodSpentMicrocents: 0n, periodStartedAt: at(r.boundary) });
      await after.admit(key, admission(1000n));
    });

    it('rolls over in a running store too; a reservation held across the boundary stays held, and settles in the period it settles in', async () => {
      const time = manualClock(at('2026-06-02T23:59:00.000Z'));
      const governance = await store.open(await store.fresh(), { time });
      const { key } = await governance.createKey({ budgetMicrocents: 1000n, budgetPeriod: 'daily' });
      await spend(governance, key, 300n);
      const held = await governance.admit(key, admission(600n));
      expect(await refusal(() => governance.admit(key, admission(101n)))).toMatchObject({ code: 'budget_exceeded' });
      time.set(at('2026-06-03T00:00:00.000Z'));
      expect(await keyState(governance, key.id)).toMatchObject({ spentMicrocents: 300n, periodSpentMicrocents: 0n, reservedMicrocents: 600n });
      expect(await refusal(() => governance.admit(key, admission(401n)))).toMatchObject({ code: 'budget_exceeded' }); // 600 still held
      await settle(governance, held, 500n);
      expect(await keyState(governance, key.id)).toMatchObject({ spentMicrocents: 800n, periodSpentMicrocents: 500n, reservedMicrocents: 0n });
      await governance.admit(key, admission(500n));
    });

    it('a changed period or budget counts the new period from the ledger', async () => {
      const time = manualClock(at('2026-06-01T12:00:00.000Z'));
      const governance = await store.open(await store.fresh(), { time });
      const { key } = await governance.createKey({ budgetMicrocents: 1000n });
      await spend(governance, key, 200n); // Monday
      time.set(at('2026-06-02T12:00:00.000Z'));
      await spend(governance, key, 300n); // Tuesday
      expect(await keyState(governance, key.id)).toMatchObject({ periodSpentMicrocents: 500n, periodStartedAt: null });
      expect(await governance.updateKey(key.id, { budgetPeriod: 'daily' })).toMatchObject({ spentMicrocents: 500n, periodSpentMicrocents: 300n });
      await governance.admit(key, admission(700n)); // 300 + 700: exactly the budget
      expect(await governance.updateKey(key.id, { budgetPeriod: 'weekly' })).toMatchObject({ periodSpentMicrocents: 500n });
      expect(await refusal(() => governance.admit(key, admission(1n)))).toMatchObject({ code: 'budget_exceeded' }); // 500 + 700 held
      expect(await governance.updateKey(key.id, { budgetMicrocents: 2000n, budgetPeriod: null })).toMatchObject({ periodSpentMicrocents: 500n });
    });

    it('admits exactly what fits when many admissions race against a period budget (the spend of the last period not counted)', async () => {
      const time = manualClock(at('2026-06-01T12:00:00.000Z'));
      const governance = await store.open(await store.fresh(), { time });
      const { key } = await governance.createKey({ budgetMicrocents: 10n * 777n, budgetPeriod: 'daily' });
      await spend(governance, key, 7000n);
      time.set(at('2026-06-02T00:00:00.000Z'));
      const results = await Promise.allSettled(Array.from({ length: 200 }, async () => governance.admit(key, admission(777n))));
      expect(admitted(results, 'budget_exceeded')).toHaveLength(10);
      expect(await keyState(governance, key.id)).toMatchObject({ reservedMicrocents: 7770n, spentMicrocents: 7000n, periodSpentMicrocents: 0n });
    });
  });

  describe('team budgets', () => {
    const T = at('2026-06-02T10:00:00.000Z');

    it("two keys share their team's budget; the team's reservation is released and settled with the key's", async () => {
      const governance = await store.open(await store.fresh(), { time: manualClock(T) });
      governance.setTeams([{ name: 'ml', budgetMicrocents: 1000n, budgetPeriod: null }]);
      const a = (await governance.createKey({ team: 'ml' })).key;
      const b = (await governance.createKey({ team: 'ml', budgetMicrocents: 5000n })).key;
      const held = await governance.admit(a, admission(600n));
      const refused = await refusal(() => governance.admit(b, admission(401n)));
      expect(refused).toMatchObject({ kind: 'billing', status: 402, code: 'team_budget_exceeded' });
      expect(refused.message).toContain('team "ml"');
      await governance.release(held);
      const settled = await governance.admit(b, admission(1000n));
      await settle(governance, settled, 900n);
      expect(await refusal(() => governance.admit(a, admission(101n)))).toMatchObject({ code: 'team_budget_exceeded' });
      await governance.admit(a, admission(100n));
      expect(await governance.listTeams()).toEqual([
        {
          name: 'ml',
          budgetMicrocents: 1000n,
          budgetPeriod: null,
          configured: true,
          spentMicrocents: 900n,
          periodSpentMicrocents: 900n,
          periodStartedAt: null,
          reservedMicrocents: 100n,
          keys: 2,
        },
      ]);
    });

    it("checks the key's budget before its team's; a team budget needs a priced model", async () => {
      const governance = await store.open(await store.fresh(), { time: manualClock(T) });
      governance.setTeams([{ name: 'ml', budgetMicrocents: 50n, budgetPeriod: null }]);
      const { key } = await governance.createKey({ team: 'ml', budgetMicrocents: 100n });
      expect(await refusal(() => governance.admit(key, admission(200n)))).toMatchObject({ code: 'budget_exceeded' });
      expect(await refusal(() => governance.admit(key, admission(60n)))).toMatchObject({ code: 'team_budget_exceeded' });
      const teamOnly = (await governance.createKey({ team: 'ml' })).key;
      expect(await refusal(() => governance.admit(teamOnly, { worstCaseMicrocents: 0n, priced: false, worstCaseTokens: 0, model: 'mystery' }))).toMatchObject({
        status: 400,
        code: 'model_price_unknown',
      });
    });

    it('team budgets change live with the configuration, and a team period rolls over', async () => {
      const time = manualClock(at('2026-06-02T23:00:00.000Z'));
      const governance = await store.open(await store.fresh(), { time });
      governance.setTeams([{ name: 'ml', budgetMicrocents: 1000n, budgetPeriod: null }]);
      const { key } = await governance.createKey({ team: 'ml' });
      await spend(governance, key, 900n);
      expect(await refusal(() => governance.admit(key, admission(200n)))).toMatchObject({
        code: 'team_budget_exceeded',
        message: expect.stringContaining('do not retry, or ask for a larger team budget'),
      });
      governance.setTeams([{ name: 'ml', budgetMicrocents: 1100n, budgetPeriod: null }]);
      const fits = await governance.admit(key, admission(200n));
      await governance.release(fits);
      governance.setTeams([{ name: 'ml', budgetMicrocents: 1000n, budgetPeriod: 'daily' }]);
      expect(await refusal(() => governance.admit(key, admission(200n)))).toMatchObject({
        code: 'team_budget_exceeded',
        message: expect.stringContaining('it starts again at 2026-06-03T00:00:00.000Z'),
      });
      time.set(at('2026-06-03T00:00:00.000Z'));
      await governance.admit(key, admission(1000n));
      expect((await governance.listTeams())[0]).toMatchObject({
        spentMicrocents: 900n,
        periodSpentMicrocents: 0n,
        periodStartedAt: at('2026-06-03T00:00:00.000Z'),
        reservedMicrocents: 1000n,
      });
      governance.setTeams([]);
      await governance.admit(key, admission(10n ** 9n)); // no budget any more
    });

    it("records the key's team on each ledger row: a key that moves team leaves its spend; teams named only on keys are reported", async () => {
      const location = await store.fresh();
      const time = manualClock(T);
      const governance = await store.open(location, { time });
      governance.setTeams([
        { name: 'research', budgetMicrocents: null, budgetPeriod: null },
        { name: 'ml', budgetMicrocents: 10_000n, budgetPeriod: 'monthly' },
      ]);
      const { key } = await governance.createKey({ team: 'ml' });
      await spend(governance, key, 100n);
      await governance.updateKey(key.id, { team: 'research' });
      await spend(governance, key, 40n);
      const loner = (await governance.createKey({ team: 'zeta' })).key;
      await governance.revokeKey(loner.id);
      const expected = [
        { name: 'ml', configured: true, spentMicrocents: 100n, periodSpentMicrocents: 100n, periodStartedAt: at('2026-06-01T00:00:00.000Z'), keys: 0 },
        { name: 'research', configured: true, spentMicrocents: 40n, keys: 1 },
        { name: 'zeta', configured: false, budgetMicrocents: null, budgetPeriod: null, spentMicrocents: 0n, keys: 0 },
      ];
      expect(await governance.listTeams()).toMatchObject(expected);
      await governance.close();
      const reopened = await store.open(location, { time });
      reopened.setTeams([
        { name: 'research', budgetMicrocents: null, budgetPeriod: null },
        { name: 'ml', budgetMicrocents: 10_000n, budgetPeriod: 'monthly' },
      ]);
      expect(await reopened.listTeams()).toMatchObject(expected);
    });

    it('admits exactly what fits when the keys of a team race for its budget', async () => {
      const governance = await store.open(await store.fresh(), { time: manualClock(T) });
      governance.setTeams([{ name: 'ml', budgetMicrocents: 10n * 777n, budgetPeriod: 'weekly' }]);
      const keys = await Promise.all(Array.from({ length: 3 }, async () => (await governance.createKey({ team: 'ml' })).key));
      const results = await Promise.allSettled(Array.from({ length: 200 }, async (_, i) => governance.admit(keys[i % 3]!, admission(777n))));
      expect(admitted(results, 'team_budget_exceeded')).toHaveLength(10);
      expect((await governance.listTeams())[0]).toMatchObject({ reservedMicrocents: 7770n, keys: 3 });
    });
  });
}
