// Edge cases real upstreams produce that the golden scenarios do not: interleaved parallel tool
// calls, typed in-stream errors, cache hints on non-text blocks, usage known at message start.
import { describe, expect, it } from 'vitest';
import { decodeStream, encodeStream } from './support/codecs.ts';

const chunk = (delta: unknown, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-x', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

describe('OpenAI stream decoder', () => {
  it('delivers interleaved parallel tool-call deltas to the call they belong to', () => {
    const wire = [
      chunk({ role: 'assistant', content: null }),
      chunk({ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'f', arguments: '{"x":' } }] }),
      chunk({ tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'g', arguments: '{"y":' } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: '1}' } }] }),
      chunk({ tool_calls: [{ index: 1, function: { arguments: '2}' } }] }),
      chunk({}, 'tool_calls'),
      'data: [DONE]\n\n',
    ].join('');
    const events = decodeStream('openai', [Buffer.from(wire)]);
    const starts = events.filter((e) => e.type === 'block_start');
    expect(starts).toEqual([
      { type: 'block_start', index: 0, block: { type: 'tool_call', id: 'call_a', name: 'f' } },
      { type: 'block_start', index: 1, block: { type: 'tool_call', id: 'call_b', name: 'g' } },
    ]);
    const argsOf = (index: number) =>
      events.flatMap((e) => (e.type === 'block_delta' && e.index === index && e.delta.type === 'tool_arguments' ? [e.delta.partialJson] : [])).join('');
    expect(argsOf(0)).toBe('{"x":1}');
    expect(argsOf(1)).toBe('{"y":2}');
    // Re-encoded for an Anthropic client, each tool_use still assembles to its own input.
    const anthropic = encodeStream('anthropic', events);
    const inputs = new Map<number, string>();
    for (const line of anthropic.split('\n')) {
      if (!line.startsWith('data: ')) continue;
      const e = JSON.parse(line.slice(6)) as { type: string; index: number; delta?: { partial_json?: string } };
      if (e.delta?.partial_json !== undefined) inputs.set(e.index, (inputs.get(e.index) ?? '') + e.delta.partial_json);
    }
    expect([...inputs.values()].map((v) => JSON.parse(v))).toEqual([{ x: 1 }, { y: 2 }]);
  });

  it.each([
    [{ message: 'quota', type: 'insufficient_quota', code: 'insufficient_quota' }, 'billing', 402],
    [{ message: 'slow down', type: 'requests', code: 'rate_limit_exceeded' }, 'rate_limit', 429],
    [{ message: 'bad', type: 'invalid_request_error', code: null }, 'invalid_request', 400],
    [{ message: 'oops', type: 'server_error', code: null }, 'server', 500],
  ])('types an in-stream error %j as %s', (error, kind, status) => {
    const events = decodeStream('openai', [Buffer.from(chunk({ content: 'a' }) + `data: ${JSON.stringify({ error })}\n\n`)]);
    expect(events.at(-1)).toMatchObject({ type: 'error', error: { kind, status, message: error.message } });
  });
});

describe('Anthropic stream encoder', () => {
  it('states the output tokens already known in message_start', () => {
    const wire = encodeStream('anthropic', [
      {
        type: 'message_start',
        id: 'msg_1',
        model: 'm',
        usage: { inputTokens: 10, outputTokens: 3, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 },
      },
      { type: 'message_stop' },
    ]);
    const start = JSON.parse(
      wire
        .split('\n')
        .find((l) => l.includes('"message_start"'))!
        .slice(6),
    ) as { message: { usage: { output_tokens: number; input_tokens: number } } };
    expect(start.message.usage).toMatchObject({ input_tokens: 10, output_tokens: 3 });
  });
});
