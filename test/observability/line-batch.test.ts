// Log lines go on together as one string (server/shared/line-batch.ts): the worker's relay to the
// main thread, and the main thread's stdout.
import { describe, expect, it } from 'vitest';
import { LineBatch } from '../../server/shared/line-batch.ts';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('LineBatch', () => {
  it('hands on the lines of one turn as one string, in order, at the end of the turn', async () => {
    const out: string[] = [];
    const batch = new LineBatch((text) => out.push(text));
    batch.write('a\n');
    batch.write('b\n');
    expect(out).toEqual([]);
    await nextTurn();
    expect(out).toEqual(['a\nb\n']);
    batch.write('c\n');
    await nextTurn();
    expect(out).toEqual(['a\nb\n', 'c\n']);
    await nextTurn();
    expect(out).toHaveLength(2); // nothing pending, nothing handed on
  });

  it('hands on at once past 256 KiB of text, and on flush, which calls back', async () => {
    const out: string[] = [];
    const batch = new LineBatch((text) => out.push(text));
    const line = `${'x'.repeat(1023)}\n`;
    for (let i = 0; i < 256; i++) batch.write(line);
    expect(out).toEqual([line.repeat(256)]);
    batch.write('tail\n');
    let called = false;
    batch.flush(() => {
      called = true;
    });
    expect(out[1]).toBe('tail\n');
    expect(called).toBe(true);
    await nextTurn();
    expect(out).toHaveLength(2);
  });

  it('with a delay, hands on that long after the first line, not at the end of its turn', async () => {
    const out: string[] = [];
    const batch = new LineBatch((text) => out.push(text), 20);
    batch.write('a\n');
    await nextTurn();
    batch.write('b\n');
    expect(out).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(out).toEqual(['a\nb\n']);
  });
});
