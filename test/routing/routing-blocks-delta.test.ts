// A configuration change sends a worker only the routing blocks it does not hold (each
// SharedArrayBuffer in a message costs both threads); the worker rebuilds the whole set, the kept
// blocks being the very ones it had, so their state carries over.
import { describe, expect, it } from 'vitest';
import { blocksDelta, receiveBlocks, RoutingMemory } from '../../server/routing/routing-memory.ts';

describe('routing blocks sent as a delta', () => {
  const memory = new RoutingMemory(2, 4);
  const held = memory.share({ lanes: ['a', 'b'], cells: ['p/a', 'p/b'], pools: ['p'] });
  memory.adopt(held);
  const next = memory.share({ lanes: ['a', 'c'], cells: ['p/a', 'p/c'], pools: ['p', 'q'] });

  it('carries every key and only the blocks not held', () => {
    const delta = blocksDelta(next, held);
    expect(delta.lanes.keys).toEqual(['a', 'c']);
    expect([...delta.lanes.added.keys()]).toEqual(['c']);
    expect([...delta.cells.added.keys()]).toEqual(['p/c']);
    expect([...delta.pools.added.keys()]).toEqual(['q']);
  });

  it('is rebuilt into the same blocks, kept ones identical', () => {
    const received = receiveBlocks(structuredClone(blocksDelta(next, held)), held);
    expect([...received.lanes.keys()]).toEqual(['a', 'c']);
    expect(received.lanes.get('a')).toBe(held.lanes.get('a'));
    expect(received.cells.get('p/a')).toBe(held.cells.get('p/a'));
    expect(received.pools.get('p')).toBe(held.pools.get('p'));
    expect(received.workers).toBe(2);
  });

  it('refuses a delta that names a block the thread does not hold', () => {
    const other = new RoutingMemory(2, 4).share({ lanes: ['x'], cells: [], pools: [] });
    expect(() => receiveBlocks(blocksDelta(next, held), other)).toThrow(/no block for a/);
  });
});
