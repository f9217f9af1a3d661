// The cheap end-of-stream check used after commit on same-protocol SSE streams must agree with a
// full decode: for every SSE protocol's golden stream, cut anywhere after the first event, the tail
// alone says "complete" exactly when the stream carried its terminator.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
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
