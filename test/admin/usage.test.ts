// GET /api/v1/admin/usage and GET /api/v1/admin/keys/{id}/usage through a real admin plane over a
// real SQLite store whose wall clock is set for each settlement: the ledger summed over [from, to)
// and grouped by day, model, key and team. Expected figures are computed here from the
// settlements made, not written out.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { components } from '../../generated/admin-api.ts';
import type { LocalGovernance } from '../../server/governance/governance.ts';
import { microcentsToCentsUp, microcentsToUsd } from '../../server/shared/money.ts';
import { manualClock, openGovernance, tempDbPath, usage } from '../governance/support.ts';
import { expectError, expectOk, send, startAdmin, type AdminServer } from './admin-server.ts';

type UsageReport = components['schemas']['UsageReport'];
type UsageRow = components['schemas']['UsageRow'];

interface Made {
  at: string;
  key: 'a' | 'b' | 'c';
  model: string;
  cost: bigint;
  tokens: [number, number, number, number];
}
// a and b are on teams, c on none; the last settles exactly at midnight of 2026-03-03.
const MADE: Made[] = [
  { at: '2026-03-01T10:00:00Z', key: 'a', model: 'up-cheap', cost: 7_000n, tokens: [10, 5, 0, 0] },
  { at: '2026-03-01T11:00:00Z', key: 'a', model: 'up-smart', cost: 1_500_001n, tokens: [100, 50, 30, 20] },
  { at: '2026-03-02T23:59:59Z', key: 'b', model: 'up-cheap', cost: 2_000_000n, tokens: [20, 10, 0, 5] },
  { at: '2026-03-02T12:00:00Z', key: 'a', model: 'up-cheap', cost: 999n, tokens: [1, 1, 0, 0] },
  { at: '2026-03-03T00:00:00Z', key: 'c', model: 'up-smart', cost: 300_000_000n, tokens: [1000, 2000, 0, 0] },
];
const TEAMS = { a: 'research', b: 'platform', c: null } as const;

describe('usage reports', () => {
  const wall = manualClock(Date.parse('2026-02-28T00:00:00Z'));
  let governance: LocalGovernance;
  let admin: AdminServer;
  const ids: Record<string, string> = {};
  const names: Record<string, string> = {};

  beforeAll(async () => {
    governance = openGovernance(tempDbPath(), { wall: wall.now });
    admin = await startAdmin(governance);
    for (const key of ['a', 'b', 'c'] as const) {
      const team = TEAMS[key];
      const created = await expectOk<{ id: string }>(
        await send('POST', `${admin.url}/api/v1/admin/keys`, { name: `key ${key}`, ...(team !== null && { team }) }),
        201,
      );
      ids[key] = created.id;
      names[created.id] = `key ${key}`;
    }
    for (const [i, made] of MADE.entries()) {
      wall.set(Date.parse(made.at));
      const reservation = governance.admit({ id: ids[made.key]! }, { worstCaseMicrocents: made.cost, priced: true, worstCaseTokens: 10_000 });
      await governance.settle(reservation, {
        costMicrocents: made.cost,
        usage: usage(...made.tokens),
        requestId: `usage-${i}`,
        model: made.model,
        lane: `demo/${made.model}`,
        estimated: false,
      });
    }
    wall.set(Date.parse('2026-03-10T00:00:00Z'));
  });
  afterAll(async () => {
    await admin.close();
    governance.close();
  });

  /** What the report must say for these settlements, grouped by `groups`, computed from MADE. */
  function expected(made: readonly Made[], groups: readonly string[]): { rows: UsageRow[]; total: UsageRow } {
    const sum = (list: readonly Made[]): UsageRow => {
      const cost = list.reduce((n, m) => n + m.cost, 0n);
      return {
        requests: list.length,
        input_tokens: list.reduce((n, m) => n + m.tokens[0], 0),
        output_tokens: list.reduce((n, m) => n + m.tokens[1], 0),
        cache_read_tokens: list.reduce((n, m) => n + m.tokens[2], 0),
        cache_write_tokens: list.reduce((n, m) => n + m.tokens[3], 0),
        cost_cents: microcentsToCentsUp(cost),
        cost_usd: microcentsToUsd(cost),
      };
    };
    const label = (m: Made): UsageRow => {
      const row: Record<string, unknown> = {};
      for (const group of groups) {
        if (group === 'day') row.day = m.at.slice(0, 10);
        if (group === 'model') row.model = m.model;
        if (group === 'key') Object.assign(row, { key_id: ids[m.key], key_name: `key ${m.key}` });
        if (group === 'team') row.team = TEAMS[m.key];
      }
      return row as unknown as UsageRow;
    };
    const buckets = new Map<string, Made[]>();
    for (const m of made) buckets.set(JSON.stringify(label(m)), [...(buckets.get(JSON.stringify(label(m))) ?? []), m]);
    const rows = [...buckets.values()].map((list) => ({ ...label(list[0]!), ...sum(list) }));
    const sortKey = (row: UsageRow) => groups.map((g) => String(g === 'key' ? row.key_id : ((row as unknown as Record<string, unknown>)[g] ?? '')));
    rows.sort((x, y) => {
      const [a, b] = [sortKey(x), sortKey(y)];
      for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
      return 0;
    });
    return { rows, total: sum(made) };
  }

  const report = async (path: string) => expectOk<UsageReport>(await fetch(`${admin.url}${path}`));

  it('no parameters: one total row over every settled request', async () => {
    const all = await report('/api/v1/admin/usage');
    expect(all).toEqual({ from: null, to: null, group_by: [], ...expected(MADE, []) });
    expect(all.rows).toHaveLength(1);
  });

  it.each([['day'], ['model'], ['key'], ['team'], ['day,model'], ['team,key'], ['model,day,key,team']])('group_by=%s', async (groupBy) => {
    const groups = groupBy.split(',');
    const answer = await report(`/api/v1/admin/usage?group_by=${groupBy}`);
    expect(answer.group_by).toEqual(groups);
    const want = expected(MADE, groups);
    // Every group there is, once (where a null team sorts is the store's choice; days come first ascending below).
    expect(answer.rows).toHaveLength(want.rows.length);
    expect(answer.rows).toEqual(expect.arrayContaining(want.rows));
    expect(answer.total).toEqual(want.total);
    if (groups[0] === 'day') expect(answer.rows.map((r) => r.day)).toEqual([...answer.rows.map((r) => r.day!)].sort());
  });

  it('a tiny spend reads as spent: 0.007 cents is 1 cent rounded up and exactly 0.00007 USD', async () => {
    const day = await report('/api/v1/admin/usage?from=2026-03-01T09:00:00Z&to=2026-03-01T10:30:00Z');
    expect(day.total).toMatchObject({ requests: 1, cost_cents: 1, cost_usd: '0.00007000' });
  });

  it('from and to: [from, to), a date meaning its UTC midnight, a date-time with any zone', async () => {
    const second = await report('/api/v1/admin/usage?from=2026-03-02&to=2026-03-03&group_by=day');
    expect(second.from).toBe('2026-03-02T00:00:00.000Z');
    expect(second.to).toBe('2026-03-03T00:00:00.000Z');
    const onSecond = MADE.filter((m) => m.at.startsWith('2026-03-02'));
    expect(second.rows).toEqual(expected(onSecond, ['day']).rows);
    // The request settled exactly at to is out; at from it is in.
    const edge = await report('/api/v1/admin/usage?from=2026-03-03');
    expect(edge.total.requests).toBe(1);
    const zoned = await report(`/api/v1/admin/usage?from=${encodeURIComponent('2026-03-02T01:59:59+02:00')}`);
    expect(zoned.from).toBe('2026-03-01T23:59:59.000Z');
    expect(zoned.total).toEqual(
      expected(
        MADE.filter((m) => m.at >= '2026-03-02'),
        [],
      ).total,
    );
    const none = await report('/api/v1/admin/usage?from=2027-01-01');
    expect(none.rows.length === 0 || none.rows[0]!.requests === 0).toBe(true);
    expect(none.total).toMatchObject({ requests: 0, cost_cents: 0, cost_usd: '0.00000000' });
  });

  it("a key's usage: only its own requests", async () => {
    const a = await report(`/api/v1/admin/keys/${ids.a}/usage?group_by=day,model`);
    expect(a.rows).toEqual(
      expected(
        MADE.filter((m) => m.key === 'a'),
        ['day', 'model'],
      ).rows,
    );
    expect(a.total).toEqual(
      expected(
        MADE.filter((m) => m.key === 'a'),
        [],
      ).total,
    );
    const cInMarch2 = await report(`/api/v1/admin/keys/${ids.c}/usage?to=2026-03-03`);
    expect(cInMarch2.total.requests).toBe(0);
  });

  it('answers 404 for the usage of an unknown key', async () => {
    expect(await expectError(await fetch(`${admin.url}/api/v1/admin/keys/key_NOSUCHKEY/usage`), 404, 'not_found')).toContain('key_NOSUCHKEY');
  });

  it.each([
    ['from=yesterday', 'query.from: "yesterday" is not a date'],
    ['to=2026-02-30', 'query.to: "2026-02-30"'],
    ['from=2026-03-01T10:00:00', 'query.from'],
    ['from=2026-03-02&to=2026-03-01', 'is after query.to'],
    ['group_by=week', 'query.group_by: "week" is not one of day, model, key, team'],
    ['group_by=day,day', 'query.group_by: day is given twice'],
    ['group_by=day,', 'query.group_by: "" is not one of'],
    ['from=2026-03-01&from=2026-03-02', 'query.from'],
    ['colour=red', 'colour'],
  ])('?%s: 400 naming the parameter', async (query, named) => {
    for (const path of ['/api/v1/admin/usage', `/api/v1/admin/keys/${ids.a}/usage`]) {
      expect(await expectError(await fetch(`${admin.url}${path}?${query}`), 400, 'invalid_request')).toContain(named);
    }
  });
});

describe('usage without a store', () => {
  let admin: AdminServer;
  beforeAll(async () => {
    admin = await startAdmin(undefined);
  });
  afterAll(() => admin.close());

  it('answers 409 no_store', async () => {
    await expectError(await fetch(`${admin.url}/api/v1/admin/usage`), 409, 'no_store');
    await expectError(await fetch(`${admin.url}/api/v1/admin/keys/key_X/usage`), 409, 'no_store');
  });
});
