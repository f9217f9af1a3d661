import { describe, expect, it } from 'vitest';
import { loadConfigText } from '../../server/config/load-config.ts';
import { RoutingTable } from '../../server/gateway/routing-table.ts';
import { FakeClock } from './fake-clock.ts';

const CONFIG = `models:
  a: { provider: demo, model: demo-echo, max_concurrent: 2 }
  b: { provider: demo-anthropic, model: demo-echo }
pools:
  ab: { members: [ { model: a, weight: 3 }, { model: b } ], breaker: { consecutive_failures: 1 } }
breaker: { consecutive_failures: 5 }
`;

describe('RoutingTable', () => {
  const table = () => {
    const clock = new FakeClock();
    return { clock, table: new RoutingTable(loadConfigText(CONFIG, 'config.yaml', '/tmp'), clock) };
  };

  it('has a router per pool and per model, pool breaker overrides merged over the defaults', () => {
    const { table: t } = table();
    expect(t.router('ab')?.members.map((m) => [m.name, m.weight])).toEqual([
      ['a', 3],
      ['b', 1],
    ]);
    expect(t.router('a')?.limits.maxAttempts).toBe(1);
    t.router('ab')!.members[0]!.cell.record('lane_fault'); // one fault opens it in this pool...
    t.router('a')!.members[0]!.cell.record('lane_fault'); // ...but not the model's own cell (5 needed)
    const snapshot = t.snapshot();
    expect(snapshot.find((p) => p.pool === 'ab')?.lanes[0]?.state).toBe('open');
    expect(snapshot.find((p) => p.pool === 'a')?.lanes[0]?.state).toBe('closed');
  });

  it('reading the snapshot never takes a half-open probe', () => {
    const { table: t, clock } = table();
    const cell = t.router('ab')!.members[0]!.cell;
    cell.record('lane_fault');
    clock.advance(60_000);
    for (let i = 0; i < 3; i++) expect(t.snapshot()[2]?.lanes[0]).toMatchObject({ lane: 'a', state: 'half_open', probeInFlight: false });
    expect(cell.admit().kind).toBe('probe');
  });

  it('shares one concurrency limiter per lane across the pools it is in', () => {
    const { table: t } = table();
    const lane = t.router('a')!.members[0]!.lane;
    expect(t.limiter(lane).tryAcquire()).toBe(true);
    expect(t.limiter(t.router('ab')!.members[0]!.lane).tryAcquire()).toBe(true);
    expect(t.limiter(lane).tryAcquire()).toBe(false);
    expect(t.snapshot().find((p) => p.pool === 'ab')?.lanes[0]?.inFlight).toBe(2);
  });
});
