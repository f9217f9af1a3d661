// The OpenAI stream encoder writes a text delta's chunk from two pieces made once per answer; its
// bytes must be exactly what stringifying the whole chunk makes, for any text, id and model.
import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../server/ir/index.ts';
import { codecFor } from '../../server/protocols/registry.ts';

const TEXTS = ['', 'plain', 'quote " and \\ backslash', 'line\nbreak\ttab\u0001', 'ünïcödé 日本 🦊', 'lone \ud800 surrogate', '\udc00slot\ud800', '</script>'];

function expected(id: string, model: string, created: number, text: string, streamUsage: boolean): string {
  const chunk = {
    id,
    object: 'chat.completion.chunk',
    created,
    model,
    choices: [{ index: 0, delta: { content: text }, logprobs: null, finish_reason: null }],
    ...(streamUsage ? { usage: null } : {}),
  };
  return `data: ${JSON.stringify(chunk)}\n\n`;
}

describe('OpenAI stream encoder, text deltas', () => {
  for (const streamUsage of [false, true])
    it(`match the whole chunk stringified (stream usage ${streamUsage})`, () => {
      const encoder = codecFor('openai')!.createStreamEncoder({ streamUsage });
      const answers = [
        { id: 'chatcmpl-1', model: 'gpt-4o' },
        { id: 'id "quoted" \udc00slot\ud800', model: 'm\u2028odel' },
        { id: '', model: '' },
      ];
      encoder.encode({ type: 'message_start', id: 'first', model: 'first-model' });
      for (const { id, model } of answers) {
        encoder.encode({ type: 'message_start', id, model });
        for (const text of TEXTS) {
          const out = encoder.encode({ type: 'block_delta', index: 0, delta: { type: 'text', text } } satisfies StreamEvent) as string;
          const created = (JSON.parse(out.slice('data: '.length)) as { created: number }).created;
          expect(out).toBe(expected(id, model, created, text, streamUsage));
        }
      }
    });
});
