// The in-memory half of last_used_at both stores share: only a later time counts, a take hands
// over each marked key once with its newest time, and a failed write's keys come back to be
// written at the next take (with whatever time they have by then).
import { describe, expect, it } from 'vitest';
import { LastUsedMarks } from '../../server/governance/last-used-marks.ts';

describe('LastUsedMarks', () => {
  it('hands over each key marked since the last take once, with its newest time', () => {
    const marks = new LastUsedMarks();
    marks.load('stored', 700);
    expect(marks.take()).toBeUndefined(); // a loaded time is already written
    marks.mark('stored', 600); // earlier than what is known: ignored
    expect(marks.get('stored')).toBe(700);
    expect(marks.take()).toBeUndefined();
    marks.mark('a', 10);
    marks.mark('a', 20);
    marks.mark('b', 5);
    expect(marks.take()).toEqual({ ids: ['a', 'b'], times: [20, 5] });
    expect(marks.take()).toBeUndefined();
    expect(marks.get('a')).toBe(20);
    expect(marks.get('unknown')).toBeNull();
  });

  it('gives a failed write back, to be written with the time it has at the next take', () => {
    const marks = new LastUsedMarks();
    marks.mark('a', 10);
    marks.mark('b', 10);
    const failed = marks.take()!;
    marks.mark('a', 30); // used again while the write was on its way
    marks.back(failed.ids);
    expect(marks.take()).toEqual({ ids: ['a', 'b'], times: [30, 10] });
  });
});
