// The cheap end-of-stream check used after commit on same-protocol SSE streams must agree with a
// full decode: for every SSE protocol's golden stream, cut anywhere after the first event, the tail
// alone says "complete" exactly when the stream carried its terminator.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SseParser } from '../../server/framing/sse-parser.ts';
import { sseEvent } from '../../server/framing/sse-format.ts';
import { StreamTail } from '../../server/gateway/stream-tail.ts';
import type { ProtocolId, StreamEvent } from '../../server/ir/index.ts';
import { codecFor } from '../../server/protocols/registry.ts';

const ROOT = new URL('../fixtures/', import.meta.url);
const SSE_PROTOCOLS: ProtocolId[] = ['openai', 'anthropic', 'responses', 'gemini', 'cohere'];

const fixtures = SSE_PROTOCOLS.flatMap((protocol) =>
  readdirSync(new URL(`${protocol}/`, ROOT), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .flatMap((d) => {
      try {
        return [{ protocol, name: d.name, bytes: readFileSync(new URL(`${protocol}/${d.name}/stream.wire.txt`, ROOT)) }];
      } catch {
        return [];
      }
    }),
);

const codec = (protocol: ProtocolId) => codecFor(protocol)!;
const endsInError = (events: readonly StreamEvent[]) => events.some((e) => e.type === 'error');
const allOf = (read: { relayed: StreamEvent[]; end: StreamEvent[] }) => [...read.relayed, ...read.end];

describe('StreamTail', () => {
  it('covers every SSE protocol', () => {
    expect(new Set(fixtures.map((f) => f.protocol))).toEqual(new Set(SSE_PROTOCOLS));
  });

  for (const f of fixtures) {
    it(`${f.protocol}/${f.name}: the tail agrees with a full decode at every cut point`, () => {
      const full = codec(f.protocol).createStreamDecoder();
      const fullEvents = [...full.push(f.bytes), ...full.end()];
      const expected = endsInError(fullEvents);
      // Cut points every few bytes: the tail sees only what follows the cut.
      for (let cut = 1; cut < f.bytes.length; cut += 7) {
        // As in the pipeline: the probe decoded everything before the cut (the commit point);
        // if it already saw the end, the tail is not consulted.
        const probe = codec(f.protocol).createStreamDecoder().push(f.bytes.subarray(0, cut));
        if (probe.some((e) => e.type === 'message_stop' || e.type === 'error')) continue;
        const tail = new StreamTail();
        tail.startAfter(f.bytes.subarray(0, cut));
        tail.push(f.bytes.subarray(cut, cut + 5));
        tail.push(f.bytes.subarray(cut + 5));
        const verdict = endsInError(allOf(tail.readEnd(codec(f.protocol).createStreamDecoder())));
        if (verdict !== expected)
          throw new Error(`cut at ${cut}: tail says ${verdict ? 'broken' : 'complete'}, full decode says ${expected ? 'broken' : 'complete'}`);
      }
    });
  }

  it('a stream that stops without its terminator is flagged', () => {
    const tail = new StreamTail();
    tail.push(
      Buffer.from(
        'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":null}]}\n\n',
      ),
    );
    expect(endsInError(allOf(tail.readEnd(codec('openai').createStreamDecoder())))).toBe(true);
  });
});

describe('StreamTail reads only the last events, as framing everything would', () => {
  const chunk = (text: string) =>
    `data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":${JSON.stringify(text)}},"finish_reason":null}]}`;
  const finish = 'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}';
  const usage =
    'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":9,"total_tokens":12}}';
  const error = 'data: {"error":{"message":"overloaded","type":"server_error"}}';

  /** What the tail read before it framed only its last blocks: everything framed, the last 8 events decoded. */
  function reference(bytes: Buffer) {
    const sse = new SseParser();
    const events = [...sse.push(bytes), ...sse.end()].slice(-8);
    const decoder = codec('openai').createStreamDecoder();
    // Each event's text again, a data line per line of its data (multi-line data stays whole).
    const text = events.map((e) => sseEvent(e.data.replaceAll('\n', '\ndata: '), e.event)).join('');
    return { relayed: decoder.push(Buffer.from(text)), end: decoder.end() };
  }

  const streams: Record<string, string[]> = {
    'a long stream': [...Array.from({ length: 30 }, (_, i) => chunk(`w${i}`)), finish, usage, 'data: [DONE]'],
    'a long stream cut short': Array.from({ length: 30 }, (_, i) => chunk(`w${i}`)),
    'keep-alives among the last events': [
      ...Array.from({ length: 12 }, (_, i) => chunk(`w${i}`)),
      ': keep-alive',
      finish,
      ': keep-alive',
      ': keep-alive',
      usage,
      ': keep-alive',
      'data: [DONE]',
    ],
    'an error among the last events': [...Array.from({ length: 12 }, (_, i) => chunk(`w${i}`)), error, chunk('after'), finish, 'data: [DONE]'],
    'an error just out of reach': [...Array.from({ length: 12 }, (_, i) => chunk(`w${i}`)), error, ...Array.from({ length: 8 }, (_, i) => chunk(`x${i}`))],
    'named events and multi-line data': [
      ...Array.from({ length: 12 }, (_, i) => `event: delta\n${chunk(`w${i}`)}`),
      `data: {"id":"c",\ndata: "x":1}`,
      'data: [DONE]',
    ],
  };
  const framings: Record<string, (events: string[]) => string> = {
    LF: (events) => events.map((e) => `${e}\n\n`).join(''),
    'CR LF': (events) => events.map((e) => `${e.replaceAll('\n', '\r\n')}\r\n\r\n`).join(''),
    'no last blank line': (events) =>
      events
        .map((e) => `${e}\n\n`)
        .join('')
        .slice(0, -2),
    'an unfinished last event': (events) => `${events.map((e) => `${e}\n\n`).join('')}data: {"id":"c","obj`,
  };

  for (const [name, events] of Object.entries(streams))
    for (const [framing, frame] of Object.entries(framings)) {
      it(`${name}, ${framing}`, () => {
        const bytes = Buffer.from(frame(events));
        for (const reads of [1, 3, 17]) {
          const tail = new StreamTail();
          const step = Math.ceil(bytes.length / reads);
          for (let at = 0; at < bytes.length; at += step) tail.push(bytes.subarray(at, at + step));
          expect(tail.readEnd(codec('openai').createStreamDecoder())).toEqual(reference(bytes));
        }
      });
    }
});
