import { execFileSync } from 'node:child_process';
import { getHeapSpaceStatistics } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { compactHeap } from '../../server/shared/compact-heap.ts';

const newSpace = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')!.space_size;

// A start's pattern: many objects that survive scavenges (so V8 grows the young generation), then let go.
const GROW_AND_DROP = `let kept = []; for (let i = 0; i < 400_000; i++) kept.push({ n: i, text: 'entry ' + i }); kept = [];`;

/** Runs `body` in a fresh node (the project's) with `flags`, compact-heap.ts imported; its stdout as JSON. */
function inNode(flags: string[], body: string): Record<string, unknown> {
  const module = new URL('../../server/shared/compact-heap.ts', import.meta.url).href;
  const script = `import { compactHeap } from '${module}'; import { getHeapSpaceStatistics } from 'node:v8'; import { runInNewContext } from 'node:vm';
const newSpace = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
${body}`;
  const out = execFileSync(process.execPath, [...flags, '--input-type=module', '-e', script], { encoding: 'utf8' });
  return JSON.parse(out) as Record<string, unknown>;
}

describe('compactHeap', () => {
  it('gives back the young generation a start grew (a helper thread)', () => {
    let kept: { n: number; text: string }[] = [];
    for (let i = 0; i < 400_000; i++) kept.push({ n: i, text: `entry ${i}` });
    kept = [];
    const before = newSpace();
    compactHeap('helper');
    expect(kept).toHaveLength(0);
    expect(newSpace()).toBeLessThan(before);
  });

  it('leaves no gc function behind for the code that runs after it', () => {
    compactHeap('helper');
    compactHeap('helper'); // the function is taken once per thread, then reused
    expect((globalThis as { gc?: unknown }).gc).toBeUndefined();
    if (!process.execArgv.includes('--expose-gc')) expect(runInNewContext('typeof gc')).toBe('undefined');
  });

  it('compacts a serving thread only with the gc of --expose-gc, and clears that global', () => {
    const body = `${GROW_AND_DROP}
const before = newSpace(); compactHeap('serving');
console.log(JSON.stringify({ shrunk: newSpace() < before, global: typeof globalThis.gc, context: runInNewContext('typeof gc') }));`;
    // With the flag (the main thread's flags, app/heap-sizing.ts): compacted, the global cleared
    // (a new context still gets one: the flag is the process's).
    expect(inNode(['--expose-gc'], body)).toEqual({ shrunk: true, global: 'undefined', context: 'function' });
    // Without it: nothing done, and no context made to get the function (a context costs a serving
    // isolate CPU for as long as it runs), so no gc anywhere.
    expect(inNode([], body)).toEqual({ shrunk: false, global: 'undefined', context: 'undefined' });
  });
});
