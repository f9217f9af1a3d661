// Budgets: reservation against spent + reserved, settlement committed with its ledger row in one
// transaction, release, idempotence per request id, and spend that survives reopening the file.
import { afterEach, describe, expect, it } from 'vitest';
import { BudgetLedger, type Reservation } from '../../server/governance/budget-ledger.ts';
import { KeyDirectory } from '../../server/governance/keys.ts';
import { openStore, type Store } from '../../server/governance/store.ts';
import { GatewayFailure } from '../../server/ir/error.ts';
import { seededRandom, tempDbPath, usage } from './support.ts';

const stores: Store[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
});

function setUp(budget: bigint | null, path = tempDbPath()) {
  const store = openStore(path);
  stores.push(store);
  const keys = new KeyDirectory(store, 'test-secret');
  const { record } = keys.create(budget === null ? {} : { budgetMicrocents: budget }, 1);
  const ledger = new BudgetLedger({ store, keyOf: (id) => keys.get(id), now: () => 1 });
  return { store, keys, ledger, keyId: record.id, path };
}

function reopen(path: string): { store: Store; ledger: BudgetLedger } {
  const store = openStore(path);
  stores.push(store);
  const keys = new KeyDirectory(store, 'test-secret');
  return { store, ledger: new BudgetLedger({ store, keyOf: (id) => keys.get(id), now: () => 1 }) };
}

function stored(store: Store, keyId: string): { spent: bigint; ledgerSum: bigint; rows: number } {
  const spent = store.db.prepare('SELECT spent_microcents AS v FROM keys WHERE id = ?');
  const sum = store.db.prepare('SELECT coalesce(sum(cost_microcents), 0) AS v, count(*) AS n FROM spend_ledger WHERE key_id = ?');
  spent.setReadBigInts(true);
  sum.setReadBigInts(true);
  const totals = sum.get(keyId) as { v: bigint; n: bigint };
  return { spent: (spent.get(keyId) as { v: bigint }).v, ledgerSum: totals.v, rows: Number(totals.n) };
}

const settlement = (requestId: string, cost: bigint) => ({
  costMicrocents: cost,
  usage: usage(10, 5),
  requestId,
  model: 'gpt',
  lane: 'openai/gpt-4.1-mini',
  estimated: false,
});

function budgetFailure(run: () => unknown): GatewayFailure {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayFailure);
    return error as GatewayFailure;
  }
  throw new Error('expected a refusal');
}

describe('BudgetLedger', () => {
  it('of 300 concurrent reservations at a budget that admits exactly 10, admits exactly 10', async () => {
    const worst = 1_234_567n;
    const { ledger, keyId } = setUp(worst * 10n);
    const attempts = await Promise.allSettled(Array.from({ length: 300 }, () => Promise.resolve().then(() => ledger.reserve(keyId, worst))));
    const admitted = attempts.filter((a) => a.status === 'fulfilled');
    expect(admitted).toHaveLength(10);
    for (const refused of attempts.filter((a) => a.status === 'rejected')) {
      expect((refused.reason as GatewayFailure).error).toMatchObject({ kind: 'billing', status: 402, code: 'budget_exceeded' });
    }
    expect(ledger.reserved(keyId)).toBe(worst * 10n);
  });

  it('refuses with a 402 that says what is left, and keeps no reservation for it', () => {
    const { ledger, keyId } = setUp(5_000_000n); // 5 cents
    ledger.reserve(keyId, 3_000_000n);
    const failure = budgetFailure(() => ledger.reserve(keyId, 2_500_000n));
    expect(failure.error).toMatchObject({ kind: 'billing', status: 402, code: 'budget_exceeded' });
    expect(failure.error.message).toContain('could cost up to 3 cents and the key has 2 of its 5 cents left');
    expect(ledger.reserved(keyId)).toBe(3_000_000n);
    ledger.reserve(keyId, 2_000_000n); // exactly the rest fits
  });

  it('swaps a reservation for the real cost at settlement, and refunds it at release', () => {
    const { store, ledger, keyId } = setUp(100n);
    const a = ledger.reserve(keyId, 60n);
    const b = ledger.reserve(keyId, 40n);
    expect(() => ledger.reserve(keyId, 1n)).toThrow(GatewayFailure);
    expect(ledger.settle(a, settlement('req-a', 25n))).toBe(true);
    expect(ledger.spent(keyId)).toBe(25n);
    expect(ledger.reserved(keyId)).toBe(40n);
    ledger.release(b);
    expect(ledger.reserved(keyId)).toBe(0n);
    ledger.release(b); // twice: refunded once
    expect(ledger.reserved(keyId)).toBe(0n);
    const c = ledger.reserve(keyId, 75n); // 25 spent + 75 = the budget
    expect(() => ledger.reserve(keyId, 1n)).toThrow(GatewayFailure);
    ledger.release(c);
    expect(stored(store, keyId)).toEqual({ spent: 25n, ledgerSum: 25n, rows: 1 });
  });

  it('settles a cost above the reservation (the budget is overshot once, then nothing is admitted)', () => {
    const { store, ledger, keyId } = setUp(100n);
    ledger.settle(ledger.reserve(keyId, 50n), settlement('req-over', 130n));
    expect(ledger.spent(keyId)).toBe(130n);
    expect(() => ledger.reserve(keyId, 0n + 1n)).toThrow(GatewayFailure);
    expect(stored(store, keyId).spent).toBe(130n);
  });

  it('settles the same request id once: a second settlement changes nothing but frees its reservation', () => {
    const { store, ledger, keyId } = setUp(1000n);
    const first = ledger.reserve(keyId, 100n);
    expect(ledger.settle(first, settlement('req-1', 70n))).toBe(true);
    expect(ledger.settle(first, settlement('req-1', 70n))).toBe(false);
    const retry = ledger.reserve(keyId, 100n);
    expect(ledger.settle(retry, settlement('req-1', 99n))).toBe(false);
    expect(ledger.spent(keyId)).toBe(70n);
    expect(ledger.reserved(keyId)).toBe(0n);
    expect(stored(store, keyId)).toEqual({ spent: 70n, ledgerSum: 70n, rows: 1 });
  });

  it('writes the ledger row and the spend before settle returns, so a reopened file has them', () => {
    const { ledger, keyId, path, store } = setUp(10n ** 9n);
    ledger.settle(ledger.reserve(keyId, 1000n), settlement('req-persist', 999n));
    expect(stored(store, keyId)).toEqual({ spent: 999n, ledgerSum: 999n, rows: 1 });
    store.close();
    const again = reopen(path);
    expect(again.ledger.spent(keyId)).toBe(999n);
    expect(() => again.ledger.reserve(keyId, 10n ** 9n - 999n + 1n)).toThrow(GatewayFailure);
    again.ledger.reserve(keyId, 10n ** 9n - 999n);
  });

  it('holds amounts beyond 2^53 exactly (a 10^12-cent budget)', () => {
    const budget = 10n ** 18n;
    const { store, ledger, keyId } = setUp(budget);
    const big = ledger.reserve(keyId, budget - 1n);
    expect(() => ledger.reserve(keyId, 2n)).toThrow(GatewayFailure);
    ledger.reserve(keyId, 1n);
    ledger.settle(big, settlement('req-big', budget - 7n));
    expect(stored(store, keyId).spent).toBe(budget - 7n);
  });

  it('a key without a budget is always admitted and still charged', () => {
    const { store, ledger, keyId } = setUp(null);
    const r = ledger.reserve(keyId, 10n ** 15n);
    ledger.settle(r, settlement('req-free', 12n));
    expect(stored(store, keyId)).toEqual({ spent: 12n, ledgerSum: 12n, rows: 1 });
  });

  it('random interleavings: never admits past the budget, and stored spend is always the sum of the ledger', () => {
    const random = seededRandom(20240611);
    const budget = 50_000n;
    const { store, ledger, keyId } = setUp(budget);
    const open: Reservation[] = [];
    let settledCost = 0n;
    for (let step = 0; step < 2000; step++) {
      const roll = random();
      if (roll < 0.5) {
        const worst = BigInt(1 + Math.floor(random() * 5000));
        try {
          open.push(ledger.reserve(keyId, worst));
        } catch (error) {
          expect((error as GatewayFailure).error.code).toBe('budget_exceeded');
          expect(ledger.spent(keyId) + ledger.reserved(keyId) + worst).toBeGreaterThan(budget);
        }
      } else if (open.length > 0) {
        const reservation = open.splice(Math.floor(random() * open.length), 1)[0]!;
        if (roll < 0.8) {
          const cost = BigInt(Math.floor(random() * Number(reservation.microcents + 1n))); // real cost ≤ worst case
          ledger.settle(reservation, settlement(`req-${step}`, cost));
          settledCost += cost;
        } else {
          ledger.release(reservation);
        }
      }
      expect(ledger.spent(keyId) + ledger.reserved(keyId)).toBeLessThanOrEqual(budget);
      expect(ledger.reserved(keyId)).toBe(open.reduce((sum, r) => sum + r.microcents, 0n));
    }
    expect(ledger.spent(keyId)).toBe(settledCost);
    const totals = stored(store, keyId);
    expect(totals.spent).toBe(settledCost);
    expect(totals.ledgerSum).toBe(settledCost);
  });

  it('refuses negative amounts', () => {
    const { ledger, keyId } = setUp(100n);
    expect(() => ledger.reserve(keyId, -1n)).toThrow(RangeError);
    expect(() => ledger.settle(ledger.reserve(keyId, 1n), settlement('neg', -1n))).toThrow(RangeError);
  });
});

describe('BudgetLedger with teams', () => {
  it("a key that moves team while a request is in flight: the hold leaves the old team, the spend goes to the new one's row", () => {
    const store = openStore(tempDbPath());
    stores.push(store);
    const keys = new KeyDirectory(store, 'test-secret');
    const { record } = keys.create({ team: 'ml' }, 1);
    const ledger = new BudgetLedger({ store, keyOf: (id) => keys.get(id), now: () => 5 });
    ledger.teams.set([
      { name: 'ml', budgetMicrocents: 1000n, budgetPeriod: null },
      { name: 'research', budgetMicrocents: 1000n, budgetPeriod: null },
    ]);
    const reservation = ledger.reserve(record.id, 600n);
    keys.update(record.id, { team: 'research' });
    ledger.settle(reservation, settlement('moved', 250n));
    const teams = Object.fromEntries(ledger.teams.states(keys.list(), 5).map((t) => [t.name, t]));
    expect(teams.ml).toMatchObject({ spentMicrocents: 0n, reservedMicrocents: 0n });
    expect(teams.research).toMatchObject({ spentMicrocents: 250n, reservedMicrocents: 0n, keys: 1 });
    expect(store.db.prepare('SELECT team, cost_microcents AS cost FROM spend_ledger').all()).toEqual([{ team: 'research', cost: 250 }]);
  });
});
