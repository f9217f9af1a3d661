// The incremental text/event-stream parser (WHATWG "event stream interpretation"), fed in chunks.
import { describe, expect, it } from 'vitest';
import { SseParser, type SseEvent } from '../../server/framing/sse-parser.ts';

const utf8 = (text: string) => Buffer.from(text, 'utf8');

/** Pushes each chunk in order and ends the stream; every event, in order. */
function parse(...chunks: (string | Uint8Array)[]): SseEvent[] {
  const parser = new SseParser();
  const events: SseEvent[] = [];
  for (const chunk of chunks) events.push(...parser.push(typeof chunk === 'string' ? utf8(chunk) : chunk));
  events.push(...parser.end());
  return events;
}

/** Every way of cutting `text` in two must parse the same. */
function expectSameAtEverySplit(text: string, expected: SseEvent[]): void {
  const bytes = utf8(text);
  for (let i = 0; i <= bytes.length; i++) {
    expect(parse(bytes.subarray(0, i), bytes.subarray(i)), `split at byte ${i}`).toEqual(expected);
  }
}

describe('SseParser', () => {
  it('dispatches one event per blank line, with no name when the stream gave none', () => {
    expect(parse('data: {"a":1}\n\ndata: [DONE]\n\n')).toEqual([
      { event: undefined, data: '{"a":1}' },
      { event: undefined, data: '[DONE]' },
    ]);
  });

  it('returns events from push() as soon as their blank line arrives', () => {
    const parser = new SseParser();
    expect(parser.push(utf8('data: one\n'))).toEqual([]);
    expect(parser.push(utf8('\ndata: tw'))).toEqual([{ event: undefined, data: 'one' }]);
    expect(parser.push(utf8('o\n\n'))).toEqual([{ event: undefined, data: 'two' }]);
    expect(parser.end()).toEqual([]);
  });

  it('takes the `event:` name and forgets it after dispatch', () => {
    expect(parse('event: message_start\ndata: {"type":"message_start"}\n\ndata: plain\n\n')).toEqual([
      { event: 'message_start', data: '{"type":"message_start"}' },
      { event: undefined, data: 'plain' },
    ]);
  });

  it('ignores comment lines (keep-alives), also between the lines of one event', () => {
    expect(parse(': keep-alive\n\n:\ndata: a\n: still the same event\ndata: b\n\n')).toEqual([{ event: undefined, data: 'a\nb' }]);
  });

  it('joins multi-line data with LF', () => {
    expect(parse('data: line one\ndata: line two\ndata:\ndata: line four\n\n')).toEqual([{ event: undefined, data: 'line one\nline two\n\nline four' }]);
  });

  it('strips exactly one space after the colon, and none is needed', () => {
    expect(parse('data:no-space\n\ndata:  two spaces\n\n')).toEqual([
      { event: undefined, data: 'no-space' },
      { event: undefined, data: ' two spaces' },
    ]);
  });

  it('treats a line without a colon as a field with an empty value', () => {
    expect(parse('data\n\n')).toEqual([{ event: undefined, data: '' }]);
  });

  it('dispatches an event whose data is empty, but not an event with no data at all', () => {
    expect(parse('data:\n\n')).toEqual([{ event: undefined, data: '' }]);
    expect(parse('event: ping\n\n')).toEqual([]);
    // The name of a data-less event does not leak into the next one.
    expect(parse('event: ping\n\ndata: x\n\n')).toEqual([{ event: undefined, data: 'x' }]);
  });

  it('ignores id, retry and unknown fields', () => {
    expect(parse('id: 7\nretry: 1000\nfoo: bar\ndata: x\n\n')).toEqual([{ event: undefined, data: 'x' }]);
  });

  it.each([
    ['LF', '\n'],
    ['CRLF', '\r\n'],
    ['CR', '\r'],
  ])('accepts %s line ends', (_name, eol) => {
    const text = `event: a${eol}data: 1${eol}data: 2${eol}${eol}: comment${eol}data: 3${eol}${eol}`;
    const expected = [
      { event: 'a', data: '1\n2' },
      { event: undefined, data: '3' },
    ];
    expect(parse(text)).toEqual(expected);
    expectSameAtEverySplit(text, expected);
  });

  it('accepts mixed line ends in one stream', () => {
    expect(parse('data: a\r\ndata: b\rdata: c\n\r\n')).toEqual([{ event: undefined, data: 'a\nb\nc' }]);
  });

  it('reads CR at the end of one chunk and LF at the start of the next as one line end', () => {
    // Two line ends here would be a blank line and dispatch "a" on its own.
    expect(parse('data: a\r', '\ndata: b\r\n\r\n')).toEqual([{ event: undefined, data: 'a\nb' }]);
    expect(parse('data: a\r\n\r', '\n')).toEqual([{ event: undefined, data: 'a' }]);
    expect(parse('data: a\r', '\n', '\r', '\n')).toEqual([{ event: undefined, data: 'a' }]);
  });

  it('still reads a CR followed by a chunk that does not start with LF as a line end', () => {
    expect(parse('data: a\r', 'data: b\r', '\r')).toEqual([{ event: undefined, data: 'a\nb' }]);
  });

  it('keeps a pending CR across an empty chunk', () => {
    expect(parse('data: a\r', new Uint8Array(0), '\ndata: b\n\n')).toEqual([{ event: undefined, data: 'a\nb' }]);
  });

  it('delivers the last event at end() when the final blank line is missing', () => {
    expect(parse('data: one\n\ndata: two\n')).toEqual([
      { event: undefined, data: 'one' },
      { event: undefined, data: 'two' },
    ]);
    expect(parse('data: one\n\nevent: last\ndata: two')).toEqual([
      { event: undefined, data: 'one' },
      { event: 'last', data: 'two' },
    ]);
    expect(parse('data: two\r')).toEqual([{ event: undefined, data: 'two' }]);
  });

  it('delivers nothing more at end() when the stream ended cleanly or held only comments', () => {
    expect(parse('data: x\n\n')).toEqual([{ event: undefined, data: 'x' }]);
    expect(parse(': just a comment')).toEqual([]);
    expect(parse('')).toEqual([]);
  });

  it('decodes UTF-8 split inside a character at every byte boundary', () => {
    const text = 'event: 名前\ndata: こんにちは 👋🏽 Zürich 👨‍👩‍👧\n\n';
    const expected = [{ event: '名前', data: 'こんにちは 👋🏽 Zürich 👨‍👩‍👧' }];
    expectSameAtEverySplit(text, expected);
    expect(parse(...[...utf8(text)].map((b) => Uint8Array.of(b)))).toEqual(expected);
  });

  it('decodes UTF-8 split inside a character that ends a line without its terminator', () => {
    const bytes = utf8('data: 世界');
    expect(parse(bytes.subarray(0, bytes.length - 1), bytes.subarray(bytes.length - 1))).toEqual([{ event: undefined, data: '世界' }]);
  });
});
