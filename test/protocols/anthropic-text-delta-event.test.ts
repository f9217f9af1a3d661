// The Anthropic stream decoder reads plain text deltas without a JSON parse; whatever it reads that
// way must be exactly what JSON.parse makes of the event, on real streams and on edge cases.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { SseParser } from '../../server/framing/sse-parser.ts';
import { plainTextDelta } from '../../server/protocols/anthropic/text-delta-event.ts';
import { codecFor } from '../../server/protocols/registry.ts';

const REAL = new URL('../fixtures/real/anthropic/streams/', import.meta.url);
const GOLDEN = new URL('../fixtures/anthropic/', import.meta.url);

const files = [
  ...readdirSync(REAL)
    .filter((f) => f.endsWith('.sse'))
    .map((f) => new URL(f, REAL)),
  ...readdirSync(GOLDEN, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => new URL(`${d.name}/stream.wire.txt`, GOLDEN))
    .filter((u) => {
      try {
        readFileSync(u);
        return true;
      } catch {
        return false;
      }
    }),
];

/** The check: read plainly, the event is what JSON.parse makes of it, and nothing else. */
function agreesWithJson(data: string): boolean {
  const plain = plainTextDelta(data);
  if (plain === undefined) return false;
  expect(JSON.parse(data)).toStrictEqual({ type: 'content_block_delta', index: plain.index, delta: { type: 'text_delta', text: plain.text } });
  return true;
}

describe('plain Anthropic text deltas', () => {
  it('real and golden streams: what is read plainly is what JSON.parse reads', () => {
    let plain = 0;
    for (const file of files) {
      const sse = new SseParser();
      for (const event of [...sse.push(readFileSync(file)), ...sse.end()]) if (agreesWithJson(event.data)) plain++;
    }
    expect(plain).toBeGreaterThan(20); // the usual text delta is read plainly
  });

  it('edge cases: only what JSON.parse reads the same way', () => {
    const head = '{"type":"content_block_delta","index":';
    const plainCases = [
      `${head}0,"delta":{"type":"text_delta","text":"hi"}}`,
      `${head}12,"delta":{"type":"text_delta","text":""}}`,
      `${head}7,"delta":{"type":"text_delta","text":"ünï 日本 🦊 \u2028"}}`,
      `${head}123456789,"delta":{"type":"text_delta","text":"x"}}`,
    ];
    for (const data of plainCases) expect(agreesWithJson(data), data).toBe(true);
    const others = [
      `${head}0,"delta":{"type":"text_delta","text":"a \\"quoted\\" word"}}`, // escapes: JSON.parse's
      `${head}0,"delta":{"type":"text_delta","text":"line\\nbreak"}}`,
      `${head}0,"delta":{"type":"text_delta","text":"raw\u0001control"}}`, // not JSON
      `${head}0,"delta":{"type":"text_delta","text":"a"b"}}`, // not JSON
      `${head}01,"delta":{"type":"text_delta","text":"x"}}`, // a leading zero: not JSON
      `${head}-1,"delta":{"type":"text_delta","text":"x"}}`,
      `${head}1.5,"delta":{"type":"text_delta","text":"x"}}`,
      `${head}1e2,"delta":{"type":"text_delta","text":"x"}}`,
      `${head},"delta":{"type":"text_delta","text":"x"}}`,
      `${head}1234567890,"delta":{"type":"text_delta","text":"x"}}`,
      `${head}0,"delta":{"type":"input_json_delta","partial_json":"{}"}}`,
      `${head}0,"delta":{"type":"text_delta","text":"x","extra":1}}`,
      `${head}0, "delta":{"type":"text_delta","text":"x"}}`,
      `${head}0,"delta":{"type":"text_delta","text":"x"}} `,
      `${head}0,"delta":{"type":"text_delta","text":"}}`,
      `${head}0,"delta":{"type":"text_delta","text":"x"}`,
      '{"type":"content_block_delta","index":0}',
    ];
    for (const data of others) expect(plainTextDelta(data), data).toBeUndefined();
  });

  it('a stream decodes the same whether its text deltas are read plainly or parsed', () => {
    for (const file of files) {
      const bytes = readFileSync(file);
      // Spaces after the colons keep every event off the plain path: the parsed reading.
      const spaced = Buffer.from(bytes.toString('utf8').replaceAll('"index":', '"index": '));
      const decode = (b: Buffer) => {
        const decoder = codecFor('anthropic')!.createStreamDecoder();
        return [...decoder.push(b), ...decoder.end()];
      };
      expect(decode(bytes), file.pathname).toEqual(decode(spaced));
    }
  });
});
