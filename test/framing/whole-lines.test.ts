// Relayed SSE bytes go out in whole lines; the unfinished one waits, whatever the reads.
import { describe, expect, it } from 'vitest';
import { WholeLines } from '../../server/framing/whole-lines.ts';

const b = (s: string) => Buffer.from(s);

describe('WholeLines', () => {
  it('passes a read that ends at a line end untouched (the same buffer)', () => {
    const lines = new WholeLines();
    const read = b('data: 1\n\n');
    expect(lines.take(read)).toBe(read);
    expect(lines.rest()).toBeUndefined();
  });

  it('holds an unfinished line until its end arrives, and gives the bytes back in order', () => {
    const lines = new WholeLines();
    expect(lines.take(b('data: 1\n\ndata: 2')).toString()).toBe('data: 1\n\n');
    expect(lines.take(b('345')).toString()).toBe('');
    expect(lines.take(b('\n\ndata: 3\r')).toString()).toBe('data: 2345\n\ndata: 3\r');
    expect(lines.take(b('\n')).toString()).toBe('\n');
  });

  it('gives back an unfinished last line at a clean end', () => {
    const lines = new WholeLines();
    lines.take(b('data: [DONE]'));
    expect(lines.rest()?.toString()).toBe('data: [DONE]');
  });

  it('keeps a long unfinished line as its reads and joins them once, when the line ends', () => {
    const lines = new WholeLines();
    const piece = Buffer.alloc(64 * 1024, 'a');
    expect(lines.take(b('data: ')).length).toBe(0);
    for (let i = 0; i < 100; i++) expect(lines.take(piece).length).toBe(0);
    const out = lines.take(b('\n\ndata: next'));
    expect(out.length).toBe(6 + 100 * piece.length + 2);
    expect(out.subarray(0, 7).toString()).toBe('data: a');
    expect(out.subarray(-3).toString()).toBe('a\n\n');
    expect(lines.rest()?.toString()).toBe('data: next');
    expect(lines.rest()).toBeUndefined();
  });
});
