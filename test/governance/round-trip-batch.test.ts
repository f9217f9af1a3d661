// The PostgreSQL store's group commit: calls made together travel in one batch, calls made while
// a batch is on its way wait for the next, a failed batch fails every call in it (it was one
// transaction), and answers go back to their own callers.
import { describe, expect, it } from 'vitest';
import { RoundTripBatch } from '../../server/governance/postgres/round-trip-batch.ts';

function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('RoundTripBatch', () => {
  it('sends the calls of one turn as one batch and answers each caller with its own result', async () => {
    const batches: number[][] = [];
    const batch = new RoundTripBatch<number, number>(async (items) => {
      batches.push([...items]);
      return items.map((n) => n * 10);
    });
    const answers = await Promise.all([1, 2, 3, 4].map((n) => batch.call(n)));
    expect(answers).toEqual([10, 20, 30, 40]);
    expect(batches).toEqual([[1, 2, 3, 4]]);
  });

  it('keeps at most `concurrency` batches in flight; calls made meanwhile go together in the next', async () => {
    const gates: ReturnType<typeof deferred<void>>[] = [];
    const batches: number[][] = [];
    const batch = new RoundTripBatch<number, number>(
      async (items) => {
        batches.push([...items]);
        const gate = deferred<void>();
        gates.push(gate);
        await gate.promise;
        return [...items];
      },
      { concurrency: 1 },
    );
    const first = batch.call(1);
    await new Promise((resolve) => setImmediate(resolve));
    const later = [2, 3, 4].map((n) => batch.call(n));
    await new Promise((resolve) => setImmediate(resolve));
    expect(batches).toEqual([[1]]); // the others wait for the one in flight
    gates[0]!.resolve();
    expect(await first).toBe(1);
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    expect(batches).toEqual([[1], [2, 3, 4]]);
    gates[1]!.resolve();
    expect(await Promise.all(later)).toEqual([2, 3, 4]);
  });

  it('fails every call of a failed batch, and the next batch runs as usual', async () => {
    let fail = true;
    const batch = new RoundTripBatch<string, string>(async (items) => {
      if (fail) throw new Error('connection terminated');
      return items.map((s) => s.toUpperCase());
    });
    const failed = await Promise.allSettled([batch.call('a'), batch.call('b')]);
    expect(failed.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    fail = false;
    expect(await batch.call('c')).toBe('C');
  });

  it('splits a backlog into batches of at most maxItems', async () => {
    const sizes: number[] = [];
    const batch = new RoundTripBatch<number, number>(
      async (items) => {
        sizes.push(items.length);
        return [...items];
      },
      { maxItems: 3, concurrency: 1 },
    );
    await Promise.all(Array.from({ length: 7 }, (_, i) => batch.call(i)));
    expect(sizes).toEqual([3, 3, 1]);
  });
});
