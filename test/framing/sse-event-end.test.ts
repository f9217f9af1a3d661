// Where SSE events end, in both framings, on bytes and on a chunk's latin-1 string alike: the one
// definition the probe, the usage strip, the credential mask and the stream tail cut at.
import { describe, expect, it } from 'vitest';
import { lastSseEventEnd, sseEventEnd } from '../../server/framing/sse-event-end.ts';

const forms = (text: string) => [text, Buffer.from(text, 'latin1')] as const;

describe('sseEventEnd', () => {
  it.each([
    ['LF framed', 'data: 1\n\ndata: 2\n\n', 0, 9],
    ['CR LF framed', 'data: 1\r\n\r\ndata: 2\r\n\r\n', 0, 11],
    ['from the second event', 'data: 1\n\ndata: 2\n\n', 9, 18],
    ['the earlier of both framings', 'data: 1\r\n\r\ndata: 2\n\n', 0, 11],
    ['unfinished', 'data: 1\ndata: 2\n', 0, -1],
    ['past the end', 'data: 1\n\n', 9, -1],
  ])('%s', (_, text, from, end) => {
    for (const chunk of forms(text)) expect(sseEventEnd(chunk, from)).toBe(end);
  });
});

describe('lastSseEventEnd', () => {
  it.each([
    ['whole events', 'data: 1\n\ndata: 2\n\n', 18],
    ['an unfinished event after whole ones', 'data: 1\n\ndata: 2', 9],
    ['CR LF framed, unfinished after', 'data: 1\r\n\r\ndata: 2\r\n', 11],
    ['a CR LF end after an LF one', 'data: 1\n\ndata: 2\r\n\r\n', 20],
    ['none complete', 'data: 1\n', 0],
    ['empty', '', 0],
  ])('%s', (_, text, end) => {
    for (const chunk of forms(text)) expect(lastSseEventEnd(chunk)).toBe(end);
  });
});
