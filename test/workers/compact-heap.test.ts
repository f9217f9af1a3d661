import { getHeapSpaceStatistics } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { compactHeap } from '../../server/shared/compact-heap.ts';

const newSpace = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')!.space_size;

describe('compactHeap', () => {
  it('gives back the young generation a start grew', () => {
    // A start's pattern: many objects that survive scavenges (so V8 grows the young generation), then let go.
    let kept: { n: number; text: string }[] = [];
    for (let i = 0; i < 400_000; i++) kept.push({ n: i, text: `entry ${i}` });
    kept = [];
    const before = newSpace();
    compactHeap();
    expect(kept).toHaveLength(0);
    expect(newSpace()).toBeLessThan(before);
  });

  it('leaves no gc function behind for the code that runs after it', () => {
    compactHeap();
    compactHeap(); // the function is taken once per thread, then reused
    if (!process.execArgv.includes('--expose-gc')) {
      expect((globalThis as { gc?: unknown }).gc).toBeUndefined();
      expect(runInNewContext('typeof gc')).toBe('undefined');
    }
  });
});
