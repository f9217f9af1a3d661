// Claude's signed thinking carried in a Responses reasoning item's encrypted_content, and back.
import { describe, expect, it } from 'vitest';
import type { ReasoningBlock } from '../../server/ir/index.ts';
import { codecFor } from '../../server/protocols/registry.ts';
import { carriableThinking, thinkingFromCarrier } from '../../server/protocols/shared/thinking-carrier.ts';

describe('thinking carrier', () => {
  it.each<[string, ReasoningBlock]>([
    ['signed thinking', { type: 'reasoning', text: 'Let me think… "quoted"', signature: 'EqQBCkYIBRgCKkA+/=', origin: 'anthropic' }],
    ['redacted thinking', { type: 'reasoning', text: '', redacted: 'EmwKAhgBEgy3va3pzix/LafPsn4a', origin: 'anthropic' }],
    ['Claude on Bedrock', { type: 'reasoning', text: 'x', signature: 's', origin: 'bedrock' }],
  ])('round-trips %s exactly', (_, block) => {
    const carried = carriableThinking(block);
    expect(carried).toMatch(/^gwthink_[a-z]+_[A-Za-z0-9_-]+$/);
    expect(thinkingFromCarrier(carried!)).toEqual(block);
  });

  it("carries only Claude's signed thinking, and leaves OpenAI's encrypted content alone", () => {
    expect(carriableThinking({ type: 'reasoning', text: 'x', origin: 'anthropic' })).toBeUndefined();
    expect(carriableThinking({ type: 'reasoning', text: 'x', signature: 's', origin: 'gemini' })).toBeUndefined();
    expect(thinkingFromCarrier('gAAAAABo-openai-encrypted')).toBeUndefined();
    expect(thinkingFromCarrier('gwthink_gemini_e30')).toBeUndefined();
  });

  it('comes back from a Responses reasoning item as the Anthropic block, which the Anthropic encoder replays', () => {
    const block: ReasoningBlock = { type: 'reasoning', text: 'Plan.', signature: 'sig-1', origin: 'anthropic' };
    const request = codecFor('responses')!.decodeRequest(
      {
        model: 'm',
        input: [
          { role: 'user', content: 'go' },
          { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Plan.' }], encrypted_content: carriableThinking(block) },
          { type: 'function_call', call_id: 'c1', name: 'ls', arguments: '{}' },
          { type: 'function_call_output', call_id: 'c1', output: 'a.ts' },
        ],
      },
      {},
    );
    expect(request.messages[1]!.content[0]).toEqual(block);
    const { body } = codecFor('anthropic')!.encodeRequest(request, { model: 'claude-sonnet-4-5', defaultMaxTokens: 1024 });
    expect((body.messages as { content: unknown[] }[])[1]!.content[0]).toEqual({ type: 'thinking', thinking: 'Plan.', signature: 'sig-1' });
  });

  it("rides on a Gemini client's next function call and comes back in front of it", () => {
    const thinking: ReasoningBlock = { type: 'reasoning', text: 'Plan.', signature: 'sig-1', origin: 'anthropic' };
    const { body, warnings } = codecFor('gemini')!.encodeResponse(
      {
        id: 'r',
        model: 'm',
        content: [thinking, { type: 'tool_call', id: 'c1', name: 'ls', arguments: '{}' }],
        finish: { reason: 'tool_calls', raw: null },
        usage: null,
      },
      { streamUsage: false },
    );
    expect(warnings).toEqual([]);
    const parts = (body as { candidates: { content: { parts: Record<string, unknown>[] } }[] }).candidates[0]!.content.parts;
    expect(parts).toEqual([
      { text: 'Plan.', thought: true },
      { functionCall: { name: 'ls', args: {} }, thoughtSignature: carriableThinking(thinking) },
    ]);
    const request = codecFor('gemini')!.decodeRequest(
      {
        contents: [
          { role: 'user', parts: [{ text: 'go' }] },
          { role: 'model', parts: [parts[1]] },
          { role: 'user', parts: [{ functionResponse: { name: 'ls', response: { output: 'a.ts' } } }] },
        ],
      },
      { pathModel: 'm' },
    );
    expect(request.messages[1]!.content).toEqual([thinking, { type: 'tool_call', id: 'call_ls_0', name: 'ls', arguments: '{}' }]);
  });

  it("goes to an Anthropic client as a thinking signature when Claude on Bedrock issued it, and comes back as Bedrock's", () => {
    const thinking: ReasoningBlock = { type: 'reasoning', text: 'Plan.', signature: 'bedrock-sig', origin: 'bedrock' };
    const { body } = codecFor('anthropic')!.encodeResponse(
      {
        id: 'r',
        model: 'm',
        content: [thinking, { type: 'tool_call', id: 'c1', name: 'ls', arguments: '{}' }],
        finish: { reason: 'tool_calls', raw: null },
        usage: null,
      },
      { streamUsage: false },
    );
    const content = (body as { content: Record<string, unknown>[] }).content;
    expect(content[0]).toEqual({ type: 'thinking', thinking: 'Plan.', signature: carriableThinking(thinking) });
    const request = codecFor('anthropic')!.decodeRequest(
      {
        model: 'm',
        max_tokens: 10,
        messages: [
          { role: 'user', content: 'go' },
          { role: 'assistant', content },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c1', content: 'a.ts' }] },
        ],
      },
      {},
    );
    expect(request.messages[1]!.content[0]).toEqual(thinking);
  });

  it("streams to the sibling's client with the signature held back and sent whole, as the carrier, when the block stops", () => {
    const thinking: ReasoningBlock = { type: 'reasoning', text: 'Plan it.', signature: 'sig-part1sig-part2', origin: 'bedrock' };
    const redacted: ReasoningBlock = { type: 'reasoning', text: '', redacted: 'opaque-data', origin: 'bedrock' };
    const encoder = codecFor('anthropic')!.createStreamEncoder({ streamUsage: false });
    const wire = [
      encoder.encode({ type: 'message_start', id: 'm1', model: 'claude' }),
      encoder.encode({ type: 'block_start', index: 0, block: { type: 'reasoning', origin: 'bedrock' } }),
      encoder.encode({ type: 'block_delta', index: 0, delta: { type: 'reasoning', text: 'Plan ' } }),
      encoder.encode({ type: 'block_delta', index: 0, delta: { type: 'signature', signature: 'sig-part1' } }),
      encoder.encode({ type: 'block_delta', index: 0, delta: { type: 'reasoning', text: 'it.' } }),
      encoder.encode({ type: 'block_delta', index: 0, delta: { type: 'signature', signature: 'sig-part2' } }),
      encoder.encode({ type: 'block_stop', index: 0 }),
      encoder.encode({ type: 'block_start', index: 1, block: { type: 'redacted_reasoning', data: 'opaque-data', origin: 'bedrock' } }),
      encoder.encode({ type: 'block_stop', index: 1 }),
    ].join('');
    const events = wire
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => JSON.parse(l.slice(6)) as { type: string; delta?: { type: string; signature?: string }; content_block?: { data?: string } });
    const signatures = events.filter((e) => e.delta?.type === 'signature_delta').map((e) => e.delta!.signature);
    expect(signatures).toEqual([carriableThinking(thinking)]);
    expect(events.find((e) => e.content_block?.data !== undefined)?.content_block?.data).toBe(carriableThinking(redacted));
    expect(encoder.warnings).toEqual([]);

    const bedrock = codecFor('bedrock')!.createStreamEncoder({ streamUsage: false });
    const anthropic: ReasoningBlock = { ...thinking, origin: 'anthropic' };
    const frames = [
      bedrock.encode({ type: 'message_start', id: 'm1', model: 'claude' }),
      bedrock.encode({ type: 'block_start', index: 0, block: { type: 'reasoning', origin: 'anthropic' } }),
      bedrock.encode({ type: 'block_delta', index: 0, delta: { type: 'reasoning', text: 'Plan it.' } }),
      bedrock.encode({ type: 'block_delta', index: 0, delta: { type: 'signature', signature: 'sig-part1' } }),
      bedrock.encode({ type: 'block_delta', index: 0, delta: { type: 'signature', signature: 'sig-part2' } }),
      bedrock.encode({ type: 'block_stop', index: 0 }),
    ]
      .map((chunk) => Buffer.from(chunk as Uint8Array).toString('utf8'))
      .join('');
    expect(frames).toContain(`"signature":"${carriableThinking(anthropic)}"`);
    expect(frames).not.toContain('sig-part');
  });
});
