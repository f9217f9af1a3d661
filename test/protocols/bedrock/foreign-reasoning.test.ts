// Reasoning signed by another protocol never reaches a Bedrock client as Bedrock's own: it would be
// replayed to a model that cannot verify it. Claude's from the Anthropic API is carried instead.
import { describe, expect, it } from 'vitest';
import { bedrockCodec } from '../../../server/protocols/bedrock/index.ts';
import { carriableThinking } from '../../../server/protocols/shared/thinking-carrier.ts';

describe('bedrock encoders and foreign reasoning', () => {
  it("encodeResponse drops another protocol's reasoning with a warning, keeps its own, and carries Anthropic's", () => {
    const anthropic = { type: 'reasoning' as const, text: 'claude', signature: 'sig-a', origin: 'anthropic' as const };
    const { body, warnings } = bedrockCodec.encodeResponse(
      {
        id: 'r',
        model: 'm',
        finish: { reason: 'stop', raw: null },
        usage: null,
        content: [
          { type: 'reasoning', text: 'foreign', signature: 'sig-g', origin: 'gemini' },
          { type: 'reasoning', text: 'own', signature: 'sig-b', origin: 'bedrock' },
          anthropic,
          { type: 'text', text: 'answer' },
        ],
      },
      { streamUsage: false },
    );
    expect((body as { output: { message: { content: unknown[] } } }).output.message.content).toEqual([
      { reasoningContent: { reasoningText: { text: 'own', signature: 'sig-b' } } },
      // Claude's thinking from the Anthropic API: the signature is the carrier, which the Bedrock decoder restores.
      { reasoningContent: { reasoningText: { text: 'claude', signature: carriableThinking(anthropic) } } },
      { text: 'answer' },
    ]);
    expect(warnings.map((w) => w.path)).toEqual(['content[0]']);
  });

  it('the stream encoder writes nothing for foreign reasoning, nor a signature on a text block', () => {
    const encoder = bedrockCodec.createStreamEncoder({ streamUsage: false });
    encoder.encode({ type: 'message_start', id: 'x', model: 'm' });
    const foreign = [
      encoder.encode({ type: 'block_start', index: 0, block: { type: 'reasoning', origin: 'gemini' } }),
      encoder.encode({ type: 'block_delta', index: 0, delta: { type: 'reasoning', text: 'hidden' } }),
      encoder.encode({ type: 'block_stop', index: 0 }),
    ];
    expect(foreign.map((chunk) => chunk.length)).toEqual([0, 0, 0]);
    encoder.encode({ type: 'block_start', index: 1, block: { type: 'text' } });
    expect(encoder.encode({ type: 'block_delta', index: 1, delta: { type: 'signature', signature: 'gemini-sig' } }).length).toBe(0);
    expect(encoder.encode({ type: 'block_delta', index: 1, delta: { type: 'text', text: 'hi' } }).length).toBeGreaterThan(0);
    expect(encoder.warnings.map((w) => w.path)).toEqual(['content[0]']);
  });
});
