// A configuration change builds a new RoutingTable over the blocks RoutingMemory hands out by lane
// and pool identity: what did not change keeps its state (open breaker, slots in flight, place in
// the weighted rotation), a lane whose upstream changed starts fresh, and a removed lane's slots
// are still counted (and given back) while requests on it finish.
import { describe, expect, it } from 'vitest';
import { loadConfigText } from '../../server/config/load-config.ts';
import { RoutingTable } from '../../server/gateway/routing-table.ts';
import { CELL_FLOATS } from '../../server/routing/breaker-cell.ts';
import { RoutingMemory } from '../../server/routing/routing-memory.ts';
import { FakeClock } from './fake-clock.ts';

const BEFORE = `models:
  a: { provider: demo, model: demo-echo, max_concurrent: 2 }
  b: { provider: demo-anthropic, model: demo-echo }
  c: { provider: demo, model: demo-echo }
pools:
  ab: { members: [ { model: a, weight: 3 }, { model: b } ], breaker: { consecutive_failures: 1 } }
`;

/** `a` unchanged but its pool re-weighted, `b` pointed at another upstream model, `c` removed, `d` added. */
const AFTER = `models:
  a: { provider: demo, model: demo-echo, max_concurrent: 2 }
  b: { provider: demo-anthropic, model: demo-echo-2 }
  d: { provider: demo, model: demo-echo }
pools:
  ab: { members: [ { model: a, weight: 1 }, { model: b, weight: 1 }, { model: d } ], breaker: { consecutive_failures: 1 } }
`;

function switched() {
  const clock = new FakeClock();
  const memory = new RoutingMemory(2, CELL_FLOATS);
  const before = loadConfigText(BEFORE, 'config.yaml', '/tmp');
  const after = loadConfigText(AFTER, 'config.yaml', '/tmp');
  const blocks = memory.share(RoutingTable.needs(before));
  memory.adopt(blocks);
  const old = new RoutingTable(before, clock, { blocks, worker: 1 });
  const reload = () => {
    const next = memory.share(RoutingTable.needs(after));
    memory.adopt(next);
    return new RoutingTable(after, clock, { blocks: next, worker: 1, previous: old });
  };
  return { clock, memory, before, after, old, reload };
}

describe('routing state across a configuration change', () => {
  it('an open breaker of an unchanged lane stays open; a lane whose upstream changed starts closed', () => {
    const { old, reload } = switched();
    old.router('ab')!.members[0]!.cell.record('lane_fault');
    old.router('ab')!.members[1]!.cell.record('lane_fault');
    const next = reload();
    const states = Object.fromEntries(
      next
        .snapshot()
        .find((p) => p.pool === 'ab')!
        .lanes.map((l) => [l.lane, l.state]),
    );
    expect(states).toEqual({ a: 'open', b: 'closed', d: 'closed' });
    // The old table (requests still in flight on it) and the new one are one cell for `a`.
    old.router('ab')!.members[0]!.cell.record('success');
    expect(next.router('ab')!.members[0]!.cell.snapshot().counters.successes).toBe(1);
  });

  it('slots in flight carry over; a removed lane keeps counting until its requests end, then is forgotten', () => {
    const { old, reload, before, after, memory } = switched();
    expect(old.limiter(before.models.get('a')!).tryAcquire()).toBe(true);
    expect(old.limiter(before.models.get('a')!).tryAcquire()).toBe(true);
    expect(old.limiter(before.models.get('c')!).tryAcquire()).toBe(true);
    const next = reload();
    // max_concurrent 2 is already reached by requests started on the old configuration.
    expect(next.limiter(after.models.get('a')!).tryAcquire()).toBe(false);
    old.limiter(before.models.get('a')!).release();
    expect(next.limiter(after.models.get('a')!).tryAcquire()).toBe(true);
    // `c` is gone from the new table, but a worker that dies still gives its slot back.
    expect(() => next.limiter(before.models.get('c')!)).toThrow(/not in the routing table/);
    memory.releaseWorker(1);
    expect(old.limiter(before.models.get('c')!).current).toBe(0);
  });

  it("members that stay keep their place in each thread's weighted rotation", () => {
    const { old, reload } = switched();
    const pick = (t: RoutingTable) => t.router('ab')!.plan().order[0]!.name;
    // Weights 3:1 go a a b a; after two picks `a` is behind, so with weights 1:1:1 `b` comes next
    // (a fresh rotation would start with `a`, the first member).
    expect([pick(old), pick(old)]).toEqual(['a', 'a']);
    const next = reload();
    expect(pick(next)).toBe('b');
    expect(RoutingTable.needs(loadConfigText(BEFORE, 'config.yaml', '/tmp')).cells).toHaveLength(5);
  });
});
