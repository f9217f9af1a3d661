// Group commit: settlements arriving together are committed in one transaction, each caller still
// waits for its own commit, a bad one is refused alone, and close() commits what is waiting; while
// more admitted requests are upstream than settlements wait, they gather for at most 2 ms.
import { afterEach, describe, expect, it } from 'vitest';
import { BudgetLedger } from '../../server/governance/budget-ledger.ts';
import { KeyDirectory } from '../../server/governance/keys.ts';
import { SettlementBatch } from '../../server/governance/settlement-batch.ts';
import { openStore, type Store } from '../../server/governance/store.ts';
import { tempDbPath, usage } from './support.ts';

const stores: Store[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.close();
});

function setUp() {
  const store = openStore(tempDbPath());
  stores.push(store);
  const keys = new KeyDirectory(store, 'test-secret');
  const { record } = keys.create({ budgetMicrocents: 1_000_000n }, 1);
  const ledger = new BudgetLedger({ store, keyOf: (id) => keys.get(id), now: () => 1 });
  // Counts the transactions the ledger opens.
  let transactions = 0;
  const transaction = store.transaction.bind(store);
  store.transaction = (work) => {
    transactions++;
    return transaction(work);
  };
  return { store, ledger, keyId: record.id, transactions: () => transactions };
}

const settlement = (requestId: string, cost: bigint) => ({ costMicrocents: cost, usage: usage(1, 1), requestId, model: 'm', lane: 'l', estimated: false });
const spentInStore = (store: Store, keyId: string) => {
  const row = store.db.prepare('SELECT spent_microcents AS v FROM keys WHERE id = ?');
  row.setReadBigInts(true);
  return (row.get(keyId) as { v: bigint }).v;
};

describe('SettlementBatch', () => {
  it('commits 200 settlements made in one turn in one transaction, each resolved after it', async () => {
    const { store, ledger, keyId, transactions } = setUp();
    const batch = new SettlementBatch(ledger);
    const pending = Array.from({ length: 200 }, (_, i) => batch.settle(ledger.reserve(keyId, 100n), settlement(`r${i}`, 10n)));
    expect(spentInStore(store, keyId)).toBe(0n); // nothing committed until the turn ends
    const results = await Promise.all(pending);
    expect(results.every((r) => r === true)).toBe(true);
    expect(transactions()).toBe(1);
    expect(spentInStore(store, keyId)).toBe(2000n);
    expect(ledger.spent(keyId)).toBe(2000n);
    expect(ledger.reserved(keyId)).toBe(0n);
  });

  it('refuses a bad settlement alone and says which ones were repeats', async () => {
    const { ledger, keyId } = setUp();
    const batch = new SettlementBatch(ledger);
    const results = await Promise.allSettled([
      batch.settle(ledger.reserve(keyId, 100n), settlement('a', 5n)),
      batch.settle(ledger.reserve(keyId, 100n), settlement('bad', -1n)),
      batch.settle(ledger.reserve(keyId, 100n), settlement('a', 5n)),
    ]);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : 'rejected'))).toEqual([true, 'rejected', false]);
    expect(ledger.spent(keyId)).toBe(5n);
  });

  it('rejects every waiting settlement when the store fails, keeping their reservations held', async () => {
    const { store, ledger, keyId } = setUp();
    const batch = new SettlementBatch(ledger);
    store.transaction = () => {
      throw new Error('disk full');
    };
    const results = await Promise.allSettled([
      batch.settle(ledger.reserve(keyId, 100n), settlement('x', 5n)),
      batch.settle(ledger.reserve(keyId, 100n), settlement('y', 5n)),
    ]);
    expect(results.every((r) => r.status === 'rejected')).toBe(true);
    expect(ledger.reserved(keyId)).toBe(200n); // charged the worst case rather than lose the spend
  });

  it('a settlement the store refuses fails alone: the others of its group commit are recorded', async () => {
    const { store, ledger, keyId } = setUp();
    const batch = new SettlementBatch(ledger);
    // More than SQLite's 64-bit integer holds: the whole batch's transaction is refused.
    const results = await Promise.allSettled([
      batch.settle(ledger.reserve(keyId, 100n), settlement('ok-1', 5n)),
      batch.settle(ledger.reserve(keyId, 100n), settlement('too-large', 2n ** 70n)),
      batch.settle(ledger.reserve(keyId, 100n), settlement('ok-2', 6n)),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(spentInStore(store, keyId)).toBe(11n);
    expect(ledger.spent(keyId)).toBe(11n);
    expect(ledger.reserved(keyId)).toBe(100n); // only the failed one's reservation stays held
  });

  it('flush() commits what is waiting at once (close does this)', async () => {
    const { store, ledger, keyId } = setUp();
    const batch = new SettlementBatch(ledger);
    const pending = batch.settle(ledger.reserve(keyId, 100n), settlement('z', 7n));
    batch.flush();
    expect(spentInStore(store, keyId)).toBe(7n);
    expect(await pending).toBe(true);
  });

  it('gathers while more admitted requests are upstream than settlements wait: one commit for them all, then a lone one at once', async () => {
    const { store, ledger, keyId, transactions } = setUp();
    const batch = new SettlementBatch(ledger);
    const held = Array.from({ length: 4 }, () => ledger.reserve(keyId, 100n));
    const first = batch.settle(held[0]!, settlement('g1', 1n)); // 1 waiting, 3 upstream: gathers
    await new Promise((resolve) => setImmediate(resolve));
    expect(spentInStore(store, keyId)).toBe(0n);
    expect(transactions()).toBe(0);
    // 3 waiting, 1 upstream: due, committed together at the end of this turn.
    const more = [batch.settle(held[1]!, settlement('g2', 2n)), batch.settle(held[2]!, settlement('g3', 3n))];
    expect(await Promise.all([first, ...more])).toEqual([true, true, true]);
    expect(transactions()).toBe(1);
    expect(spentInStore(store, keyId)).toBe(6n);
    // The last one alone (nothing else admitted): at the end of its turn, without waiting.
    const last = batch.settle(held[3]!, settlement('g4', 4n));
    await new Promise((resolve) => setImmediate(resolve));
    expect(spentInStore(store, keyId)).toBe(10n);
    expect(await last).toBe(true);
    expect(transactions()).toBe(2);
  });

  it('commits a gathering settlement within 2 ms even when the requests upstream never settle', async () => {
    const { store, ledger, keyId, transactions } = setUp();
    const batch = new SettlementBatch(ledger);
    const alone = ledger.reserve(keyId, 100n);
    for (let i = 0; i < 5; i++) ledger.reserve(keyId, 100n); // still upstream
    const started = performance.now();
    expect(await batch.settle(alone, settlement('w', 9n))).toBe(true);
    expect(performance.now() - started).toBeLessThan(100); // 2 ms, give or take a busy machine's timer
    expect(transactions()).toBe(1);
    expect(spentInStore(store, keyId)).toBe(9n);
    expect(ledger.reserved(keyId)).toBe(500n);
  });

  it('flush() commits a gathering settlement at once', async () => {
    const { store, ledger, keyId } = setUp();
    const batch = new SettlementBatch(ledger);
    const mine = ledger.reserve(keyId, 100n);
    ledger.reserve(keyId, 100n); // upstream: the settlement below gathers
    const pending = batch.settle(mine, settlement('f', 3n));
    batch.flush();
    expect(spentInStore(store, keyId)).toBe(3n);
    expect(await pending).toBe(true);
  });
});
