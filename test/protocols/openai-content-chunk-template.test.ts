// The OpenAI stream decoder reads a text chunk shaped like one it already parsed without parsing
// it (ContentChunkTemplate). What it makes of any stream must be exactly what parsing every chunk
// makes of it: compared here on the golden and the real recorded streams, on those streams with
// OpenAI's per-event `obfuscation` member taken out (so the template applies), with their texts
// swapped for hostile ones (quotes, escapes, control characters, other scripts), and on the
// chunks that look like the template but are not.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../server/ir/index.ts';
import { ContentChunkTemplate } from '../../server/protocols/openai/content-chunk-template.ts';
import { OpenAIStreamDecoder } from '../../server/protocols/openai/stream-decoder.ts';

const FIXTURES = new URL('../fixtures/', import.meta.url);
const golden = readdirSync(new URL('openai/', FIXTURES), { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .flatMap((d) => {
    try {
      return [{ name: `golden ${d.name}`, text: readFileSync(new URL(`openai/${d.name}/stream.wire.txt`, FIXTURES), 'utf8') }];
    } catch {
      return [];
    }
  });
const real = readdirSync(new URL('real/openai/streams/', FIXTURES)).map((name) => ({
  name: `real ${name}`,
  text: readFileSync(new URL(`real/openai/streams/${name}`, FIXTURES), 'utf8'),
}));

function decode(text: string, options: { parseEvery?: boolean }, reads = 1): StreamEvent[] {
  const decoder = new OpenAIStreamDecoder(options);
  const bytes = Buffer.from(text);
  const step = Math.ceil(bytes.length / reads);
  const events: StreamEvent[] = [];
  for (let at = 0; at < bytes.length; at += step) events.push(...decoder.push(bytes.subarray(at, at + step)));
  events.push(...decoder.end());
  return events;
}

const withoutObfuscation = (text: string) => text.replace(/,"obfuscation":"[^"]*"/g, '');

const HOSTILE = ['say \\"hi\\"', 'a\\\\b', 'line\\nbreak', '\\u00e9t\\u00e9', 'été ☃ 𝄞', '\t', ' ', '{"content":"x"}', '\\/'];

/** Every other text delta's JSON string swapped for a hostile one (as JSON text: escapes stay escapes, a raw tab stays raw), the others for plain text. */
function hostile(text: string, which: string): string {
  let n = 0;
  return text.replace(/"content":"(?:[^"\\]|\\.)+"/g, () => `"content":"${n++ % 2 === 0 ? `plain ${n}` : which}"`);
}

describe('OpenAI stream decoder: text chunks read through the template', () => {
  const streams = [...golden, ...real];
  it('has streams to compare, and the template applies to some of them', () => {
    expect(golden.length).toBeGreaterThan(3);
    expect(real.length).toBeGreaterThan(3);
  });

  for (const { name, text } of streams) {
    it(`${name}: as parsing every chunk, as recorded, without obfuscation and with hostile texts, read whole and in pieces`, () => {
      const plain = withoutObfuscation(text);
      for (const variant of [text, plain, ...HOSTILE.map((h) => hostile(plain, h))])
        for (const reads of [1, 7]) expect(decode(variant, {}, reads)).toEqual(decode(variant, { parseEvery: true }, reads));
    });
  }
});

describe('OpenAI stream decoder: the end read through forStreamEnd', () => {
  /** The stream's events as SSE text, one string each, for cutting it at an event. */
  const eventsOf = (text: string) => text.split(/(?<=\n\n)/).filter((e) => e.trim() !== '');

  for (const { name, text } of [...golden, ...real]) {
    it(`${name}: every suffix reads as a new decoder reads it (less the message_start a mid-stream start makes), the template learned from the start or not`, () => {
      for (const variant of [text, withoutObfuscation(text), hostile(withoutObfuscation(text), 'say \\"hi\\"')]) {
        const events = eventsOf(variant);
        // The probe: up to the first text chunk (where relayStream commits), or all of it.
        const probe = new OpenAIStreamDecoder();
        for (let at = 1; at < events.length; at++) {
          probe.push(Buffer.from(events[at - 1]!));
          const suffix = Buffer.from(events.slice(at).join(''));
          const fresh = new OpenAIStreamDecoder();
          const expected = [...fresh.push(suffix), ...fresh.end()].filter((e) => e.type !== 'message_start');
          const shared = probe.forStreamEnd();
          expect([...shared.push(suffix), ...shared.end()]).toEqual(expected);
        }
      }
    });
  }
});

describe('ContentChunkTemplate', () => {
  const chunk = (content: string, rest = '"finish_reason":null') =>
    `{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":${content}},${rest}}]}`;
  const learned = () => {
    const template = new ContentChunkTemplate();
    const data = chunk('"Hello"');
    template.learn(data, JSON.parse(data));
    return template;
  };

  it('reads a chunk that differs only in its text', () => {
    expect(learned().text(chunk('" world."'))).toBe(' world.');
    expect(learned().text(chunk('""'))).toBe('');
  });

  it('leaves to the parse: an escape, a raw control character, a quote that ends the string early, another member, a finish', () => {
    const template = learned();
    for (const data of [
      chunk('"a\\"b"'),
      chunk('"a\\nb"'),
      chunk('"a\tb"'),
      chunk('"a","x":"b"'),
      chunk('"a"', '"finish_reason":"stop"'),
      chunk('"a"').slice(1),
    ])
      expect(template.text(data)).toBeUndefined();
  });

  it('learns only a plain text chunk written without escapes, whose one content member is the delta', () => {
    const cases = [
      chunk('"a\\u0062"'), // an escape
      chunk('"a"', '"finish_reason":"stop"'), // a finish
      chunk('"a"', '"finish_reason":null,"x":{"content":"a"}'), // a second content member
      `{"choices":[{"index":0,"delta":{"content": "a"},"finish_reason":null}]}`, // spacing
      `{"choices":[{"index":0,"delta":{"content":"a","refusal":"no"},"finish_reason":null}]}`, // a refusal
      `{"choices":[{"index":0,"delta":{"content":"a"},"finish_reason":null}],"usage":{"prompt_tokens":1}}`, // usage
    ];
    for (const data of cases) {
      const template = new ContentChunkTemplate();
      template.learn(data, JSON.parse(data));
      expect(template.text(data)).toBeUndefined();
    }
  });
});
