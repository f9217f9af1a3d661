// The Anthropic stream encoder writes a text delta from a template; its bytes must be exactly what
// stringifying the whole event makes, for any text and block index.
import { describe, expect, it } from 'vitest';
import { sseEvent } from '../../server/framing/sse-format.ts';
import { textDeltaEvent } from '../../server/protocols/anthropic/stream-encoder.ts';

const TEXTS = ['', 'plain', 'quote " and \\ backslash', 'line\nbreak\ttab\u0001', 'ünïcödé 日本 🦊 \u2028', 'lone \ud800 surrogate', '</script>'];

describe('Anthropic stream encoder, text deltas', () => {
  it('match the whole event stringified', () => {
    for (const index of [0, 1, 7, 12, 1234])
      for (const text of TEXTS)
        expect(textDeltaEvent(index, text)).toBe(
          sseEvent(JSON.stringify({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } }), 'content_block_delta'),
        );
  });
});
