// The usage thread (usage-thread.ts): started on the first query and kept, the same answers as in
// place, started again when it dies, and in place (with a warning) whenever it cannot answer.
import { afterEach, describe, expect, it } from 'vitest';
import type { LocalGovernance } from '../../server/governance/governance.ts';
import { queryUsage } from '../../server/governance/usage-query.ts';
import type { UsageQuery, UsageReport } from '../../server/governance/usage-report.ts';
import { UsageThread } from '../../server/governance/usage-thread.ts';
import { openGovernance, tempDbPath, usage } from './support.ts';

const opened: { close(): void }[] = [];
afterEach(() => {
  for (const thing of opened.splice(0).reverse()) thing.close();
});

const BY_KEY_MODEL: UsageQuery = { groupBy: ['key', 'model'] };

/** A store with a few settled requests, and a usage thread on its file. */
async function settledStore(): Promise<{ governance: LocalGovernance; thread: UsageThread; warnings: string[]; inPlace: () => number }> {
  const governance = openGovernance(tempDbPath());
  opened.push(governance);
  const a = governance.createKey({ name: 'a', team: 'ml' }).key;
  const b = governance.createKey({ name: 'b' }).key;
  for (const [key, model, cost] of [
    [a, 'gpt', 300n],
    [a, 'claude', 500n],
    [b, 'gpt', 700n],
  ] as const) {
    const reservation = governance.reserve(key, { worstCaseMicrocents: 1000n, priced: true, worstCaseTokens: 0 });
    await governance.settle(reservation, { model, lane: 'l', usage: usage(10, 5), costMicrocents: cost, estimated: false, requestId: `${key.id}-${model}` });
  }
  const warnings: string[] = [];
  let inPlaceCount = 0;
  const thread = new UsageThread(
    governance.store.path,
    (query) => {
      inPlaceCount++;
      return queryUsage(governance.store.db, query);
    },
    (message) => warnings.push(message),
  );
  opened.push(thread);
  return { governance, thread, warnings, inPlace: () => inPlaceCount };
}

describe('the usage thread', () => {
  it('starts on the first query and keeps its thread; its answers are the in-place ones, settlements committed since included', async () => {
    const { governance, thread, warnings, inPlace } = await settledStore();
    expect(thread.threadForTests).toBeUndefined();
    const first: UsageReport = await thread.query(BY_KEY_MODEL);
    const worker = thread.threadForTests;
    expect(worker).toBeDefined();
    expect(first).toEqual(queryUsage(governance.store.db, BY_KEY_MODEL));
    expect(first.total).toMatchObject({ requests: 3, costMicrocents: 1500n });
    const key = governance.listKeys()[0]!;
    await governance.settle(governance.reserve(key, { worstCaseMicrocents: 1000n, priced: true, worstCaseTokens: 0 }), {
      model: 'gpt',
      lane: 'l',
      usage: usage(1, 1),
      costMicrocents: 1n,
      estimated: false,
      requestId: 'later',
    });
    for (const query of [BY_KEY_MODEL, { groupBy: ['team', 'day'] }, { groupBy: [] }, { groupBy: ['model'], keyId: key.id, fromMs: 0 }] as UsageQuery[])
      expect(await thread.query(query)).toEqual(queryUsage(governance.store.db, query));
    expect(thread.threadForTests).toBe(worker);
    expect(inPlace()).toBe(0);
    expect(warnings).toEqual([]);
  });

  it('refuses a group it does not know, as in place', async () => {
    const { thread } = await settledStore();
    await expect(thread.query({ groupBy: ['colour' as never] })).rejects.toThrow(RangeError);
  });

  it('answers in place when the thread dies with the query, and starts another at the next query', async () => {
    const { governance, thread, warnings, inPlace } = await settledStore();
    const asked = thread.query(BY_KEY_MODEL);
    const first = thread.threadForTests!;
    await first.terminate();
    expect(await asked).toEqual(queryUsage(governance.store.db, BY_KEY_MODEL));
    expect(inPlace()).toBe(1);
    expect(warnings).toEqual([expect.stringMatching(/^the usage thread failed \(the usage thread exited \(code \d+\)\): starting another at the next query$/)]);
    expect(await thread.query(BY_KEY_MODEL)).toEqual(queryUsage(governance.store.db, BY_KEY_MODEL));
    expect(thread.threadForTests).toBeDefined();
    expect(thread.threadForTests).not.toBe(first);
    expect(inPlace()).toBe(1);
  });

  it('queries in place from then on, with a warning, when the thread cannot open the file', async () => {
    const { governance } = await settledStore();
    const warnings: string[] = [];
    const missing = `${tempDbPath()}-missing`;
    const thread = new UsageThread(
      missing,
      (query) => queryUsage(governance.store.db, query),
      (message) => warnings.push(message),
    );
    opened.push(thread);
    // Two at once: the one still waiting when the thread is given up is answered in place too.
    const expected = queryUsage(governance.store.db, BY_KEY_MODEL);
    expect(await Promise.all([thread.query(BY_KEY_MODEL), thread.query(BY_KEY_MODEL)])).toEqual([expected, expected]);
    expect(warnings).toEqual([
      expect.stringMatching(/^the usage thread cannot open .*-missing read-only \(.*\): querying usage on the main thread from now on$/),
    ]);
    expect(thread.threadForTests).toBeUndefined();
    await thread.query(BY_KEY_MODEL);
    expect(warnings).toHaveLength(1);
  });

  it('has no thread for an in-memory store (no other connection can read it), and says nothing', async () => {
    const warnings: string[] = [];
    const thread = new UsageThread(
      ':memory:',
      () => ({ rows: [], total: { requests: 0 } }) as unknown as UsageReport,
      (message) => warnings.push(message),
    );
    opened.push(thread);
    expect(await thread.query({ groupBy: [] })).toEqual({ rows: [], total: { requests: 0 } });
    expect(thread.threadForTests).toBeUndefined();
    expect(warnings).toEqual([]);
  });

  it('ends with the store: a query still waiting is refused, not answered from a closed store', async () => {
    const { governance } = await settledStore();
    const asked = governance.usage(BY_KEY_MODEL);
    governance.close();
    await expect(asked).rejects.toThrow('the store is closed');
  });
});
