// Part of the key-limits suite (key-limits-behaviour.ts): tokens per minute (held at the worst
// case, settled to real tokens, released, Retry-After, exact under a race) and usage reports from
// the spend ledger (grouped by day, model, key and team, over [from, to)).
import { describe, expect, it } from 'vitest';
import type { UsageRow } from '../../server/governance/usage-report.ts';
import { admission, admitted, at, keyState, refusal, settle } from './key-limits-support.ts';
import type { StoreUnderTest } from './store-under-test.ts';
import { manualClock } from './support.ts';

const T = at('2026-06-02T10:00:00.000Z');

export function tokenRateBehaviour(store: StoreUnderTest): void {
  describe('tokens per minute', () => {
    const open = async () => {
      const time = manualClock(T);
      return { time, governance: await store.open(await store.fresh(), { time }) };
    };

    it('holds the worst case; settling to the real tokens (input + output) frees room; a release frees it all', async () => {
      const { governance } = await open();
      const { key } = await governance.createKey({ tpm: 1000 });
      const first = await governance.admit(key, admission(0n, 600));
      const refused = await refusal(() => governance.admit(key, admission(0n, 500)));
      expect(refused).toMatchObject({ kind: 'rate_limit', status: 429, code: 'tokens_per_minute_exceeded', retryAfterSeconds: 60 });
      expect(refused.message).toContain('1000 tokens per minute');
      await settle(governance, first, 10n, { input: 100, output: 50, cacheRead: 80 }); // 150 tokens: cache is part of input
      const second = await governance.admit(key, admission(0n, 850)); // 150 + 850 = 1000
      expect(await refusal(() => governance.admit(key, admission(0n, 1)))).toMatchObject({ code: 'tokens_per_minute_exceeded' });
      await governance.release(second);
      await governance.release(second); // idempotent
      await governance.admit(key, admission(0n, 850));
    });

    it('Retry-After is when enough of the window has passed; the request fits at that instant', async () => {
      const { time, governance } = await open();
      const { key } = await governance.createKey({ tpm: 1000 });
      await settle(governance, await governance.admit(key, admission(0n, 400)), 0n, { input: 300, output: 100 });
      time.advance(20_000);
      await governance.admit(key, admission(0n, 500));
      time.advance(10_000);
      // 900 in the window: 300 more fit once the first request (400) leaves, 30 s from now.
      expect(await refusal(() => governance.admit(key, admission(0n, 300)))).toMatchObject({ retryAfterSeconds: 30 });
      // 1000 need both gone: the second leaves 50 s from now.
      expect(await refusal(() => governance.admit(key, admission(0n, 1000)))).toMatchObject({ retryAfterSeconds: 50 });
      time.advance(29_999);
      expect(await refusal(() => governance.admit(key, admission(0n, 300)))).toMatchObject({ retryAfterSeconds: 1 });
      time.advance(1);
      await governance.admit(key, admission(0n, 300));
    });

    it('a request whose worst case alone exceeds the tpm is refused with Retry-After 60 and a message that says so', async () => {
      const { governance } = await open();
      const { key } = await governance.createKey({ tpm: 100 });
      const refused = await refusal(() => governance.admit(key, admission(0n, 101)));
      expect(refused).toMatchObject({ status: 429, code: 'tokens_per_minute_exceeded', retryAfterSeconds: 60 });
      expect(refused.message).toContain('more than this key');
    });

    it('comes after the budgets; a tpm refusal holds no money and gives the rpm back', async () => {
      const { governance } = await open();
      const { key, secret } = await governance.createKey({ tpm: 100, rpm: 1, budgetMicrocents: 1000n });
      expect(await refusal(() => governance.admit(key, admission(1001n, 500)))).toMatchObject({ code: 'budget_exceeded' });
      const pass = await governance.authorizePresented(secret);
      expect(pass).not.toHaveProperty('refusal');
      expect(await refusal(() => governance.reserve(pass.key, admission(500n, 101)))).toMatchObject({ code: 'tokens_per_minute_exceeded' });
      expect(await keyState(governance, key.id)).toMatchObject({ reservedMicrocents: 0n });
      await governance.admit(key, admission(500n, 100)); // the minute's one request is still free
    });

    it('admits exactly what fits when many admissions race for the tokens', async () => {
      const { governance } = await open();
      const { key } = await governance.createKey({ tpm: 10 * 50 });
      const results = await Promise.allSettled(Array.from({ length: 200 }, async () => governance.admit(key, admission(0n, 50))));
      expect(admitted(results, 'tokens_per_minute_exceeded')).toHaveLength(10);
    });
  });
}

const ZERO = { requests: 0, inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costMicrocents: 0n };

/** The expected sums of some of the requests below. */
function sum(rows: readonly Spent[]): Omit<UsageRow, 'day' | 'model' | 'keyId' | 'team'> {
  return rows.reduce(
    (total, r) => ({
      requests: total.requests + 1,
      inputTokens: total.inputTokens + r.input,
      outputTokens: total.outputTokens + r.output,
      cacheReadTokens: total.cacheReadTokens + r.cacheRead,
      cacheWriteTokens: total.cacheWriteTokens + r.cacheWrite,
      costMicrocents: total.costMicrocents + r.cost,
    }),
    ZERO,
  );
}

interface Spent {
  readonly at: string;
  readonly key: 'a' | 'b';
  readonly model: string;
  readonly cost: bigint;
  readonly input: number;
  readonly output: number;
  readonly cacheRead: number;
  readonly cacheWrite: number;
}

// Key a is in team ml, key b in none; three UTC days, two models.
const SPENT: readonly Spent[] = [
  { at: '2026-06-01T23:59:59.999Z', key: 'a', model: 'gpt-4.1', cost: 1000n, input: 100, output: 10, cacheRead: 50, cacheWrite: 0 },
  { at: '2026-06-02T00:00:00.000Z', key: 'a', model: 'gpt-4.1-mini', cost: 7n, input: 10, output: 1, cacheRead: 0, cacheWrite: 5 },
  { at: '2026-06-02T12:00:00.000Z', key: 'b', model: 'gpt-4.1', cost: 2500n, input: 300, output: 30, cacheRead: 0, cacheWrite: 0 },
  { at: '2026-06-02T18:00:00.000Z', key: 'a', model: 'gpt-4.1', cost: 333n, input: 40, output: 4, cacheRead: 20, cacheWrite: 2 },
  { at: '2026-06-03T00:00:00.000Z', key: 'b', model: 'gpt-4.1-mini', cost: 90n, input: 9, output: 9, cacheRead: 0, cacheWrite: 0 },
];

export function usageBehaviour(store: StoreUnderTest): void {
  describe('usage', () => {
    const setUp = async () => {
      const time = manualClock(at(SPENT[0]!.at));
      const governance = await store.open(await store.fresh(), { time });
      const keys = { a: (await governance.createKey({ team: 'ml' })).key, b: (await governance.createKey({})).key };
      for (const s of SPENT) {
        time.set(at(s.at));
        await settle(governance, await governance.admit(keys[s.key], admission(s.cost)), s.cost, s);
      }
      return { governance, keys };
    };
    const where = (test: (s: Spent) => boolean) => sum(SPENT.filter(test));

    it('sums the whole ledger, and by day (the UTC date of settlement), with exact figures', async () => {
      const { governance } = await setUp();
      const all = await governance.usage({ groupBy: [] });
      expect(all).toEqual({ rows: [sum(SPENT)], total: sum(SPENT) });
      expect(await governance.usage({ groupBy: ['day'] })).toEqual({
        rows: [
          { day: '2026-06-01', ...where((s) => s.at.startsWith('2026-06-01')) },
          { day: '2026-06-02', ...where((s) => s.at.startsWith('2026-06-02')) },
          { day: '2026-06-03', ...where((s) => s.at.startsWith('2026-06-03')) },
        ],
        total: sum(SPENT),
      });
    });

    it('groups by model, by key, by team (no team last) and by several at once', async () => {
      const { governance, keys } = await setUp();
      expect((await governance.usage({ groupBy: ['model'] })).rows).toEqual([
        { model: 'gpt-4.1', ...where((s) => s.model === 'gpt-4.1') },
        { model: 'gpt-4.1-mini', ...where((s) => s.model === 'gpt-4.1-mini') },
      ]);
      const byKey = (await governance.usage({ groupBy: ['key'] })).rows;
      expect(byKey).toEqual(
        [
          { keyId: keys.a.id, ...where((s) => s.key === 'a') },
          { keyId: keys.b.id, ...where((s) => s.key === 'b') },
        ].sort((x, y) => (x.keyId < y.keyId ? -1 : 1)),
      );
      expect((await governance.usage({ groupBy: ['team'] })).rows).toEqual([
        { team: 'ml', ...where((s) => s.key === 'a') },
        { team: null, ...where((s) => s.key === 'b') },
      ]);
      expect((await governance.usage({ groupBy: ['day', 'model'] })).rows).toEqual([
        { day: '2026-06-01', model: 'gpt-4.1', ...sum([SPENT[0]!]) },
        { day: '2026-06-02', model: 'gpt-4.1', ...sum([SPENT[2]!, SPENT[3]!]) },
        { day: '2026-06-02', model: 'gpt-4.1-mini', ...sum([SPENT[1]!]) },
        { day: '2026-06-03', model: 'gpt-4.1-mini', ...sum([SPENT[4]!]) },
      ]);
    });

    it('takes rows in [from, to), and one key alone', async () => {
      const { governance, keys } = await setUp();
      const june2 = { fromMs: at('2026-06-02T00:00:00.000Z'), toMs: at('2026-06-03T00:00:00.000Z') };
      expect(await governance.usage({ ...june2, groupBy: [] })).toEqual({
        rows: [where((s) => s.at.startsWith('2026-06-02'))],
        total: where((s) => s.at.startsWith('2026-06-02')),
      });
      expect((await governance.usage({ ...june2, groupBy: ['key'], keyId: keys.a.id })).rows).toEqual([{ keyId: keys.a.id, ...sum([SPENT[1]!, SPENT[3]!]) }]);
      expect((await governance.usage({ fromMs: at('2026-06-03T00:00:00.001Z'), groupBy: ['day'] })).rows).toEqual([]);
      expect((await governance.usage({ toMs: at('2026-06-01T23:59:59.999Z'), groupBy: [] })).total).toEqual(ZERO);
    });
  });
}
