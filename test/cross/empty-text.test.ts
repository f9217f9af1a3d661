import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { describe, expect, it } from 'vitest';
import type { ChatResponse } from '../../server/ir/index.ts';
import { upstreamJson } from '../support/six-lane-harness.ts';
import { useSixLaneHarness } from '../support/six-lane-suite.ts';

const ANSWER: ChatResponse = {
  id: 'r1',
  model: 'upstream',
  content: [{ type: 'text', text: 'sunny' }],
  finish: { reason: 'stop', raw: null },
  usage: { inputTokens: 3, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 },
};

const CALL = { id: 'call_1', type: 'function' as const, function: { name: 'weather', arguments: '{"city":"Oslo"}' } };

function conversation(assistantContent: ChatCompletionMessageParam['content']): ChatCompletionMessageParam[] {
  return [
    {
      role: 'system',
      content: [
        { type: 'text', text: '' },
        { type: 'text', text: 'Be brief.' },
      ],
    },
    { role: 'user', content: 'Weather in Oslo?' },
    { role: 'assistant', content: assistantContent as string, tool_calls: [CALL] },
    {
      role: 'tool',
      tool_call_id: 'call_1',
      content: [
        { type: 'text', text: '{"sky":"clear"}' },
        { type: 'text', text: '' },
      ],
    },
    { role: 'assistant', content: [{ type: 'text', text: '' }] },
    {
      role: 'user',
      content: [
        { type: 'text', text: '' },
        { type: 'text', text: 'And tomorrow?' },
      ],
    },
  ];
}

/** Every content array of the upstream body (messages/contents, their blocks/parts), to look for empties. */
function emptyThings(body: unknown): string[] {
  const found: string[] = [];
  const walk = (value: unknown, path: string) => {
    if (Array.isArray(value)) {
      if (value.length === 0 && /(content|parts)$/.test(path) && !/toolResult|tool_result/.test(path)) found.push(path);
      value.forEach((v, i) => walk(v, `${path}[${i}]`));
    } else if (value !== null && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) {
        if (k === 'text' && v === '') found.push(`${path}.text`);
        walk(v, `${path}.${k}`);
      }
    }
  };
  walk(body, '');
  return found;
}

const lanes = useSixLaneHarness();

describe('empty text never reaches a lane that refuses it', () => {
  const contents: [string, ChatCompletionMessageParam['content']][] = [
    ['""', ''],
    ['null', null],
    ['[{text: ""}]', [{ type: 'text', text: '' }]],
  ];
  for (const lane of ['bedrock', 'anthropic', 'gemini'] as const) {
    it.each(contents)(`openai → ${lane}: assistant content %s beside tool calls`, async (_, content) => {
      lanes.harness.upstream.enqueue(upstreamJson(lane, ANSWER));
      const out = await lanes.openai.chat.completions.create({ model: `m-${lane}`, messages: conversation(content) });
      expect(out.choices[0]?.message.content).toBe('sunny');
      const body = lanes.harness.lastRequest().json as Record<string, unknown>;
      expect(emptyThings(body)).toEqual([]);
      // The tool call itself is still there, and the conversation still alternates.
      const turns = (body.messages ?? body.contents) as { role: string }[];
      expect(JSON.stringify(turns)).toContain('Oslo');
      expect(turns.map((t) => t.role)).toEqual(lane === 'gemini' ? ['user', 'model', 'user'] : ['user', 'assistant', 'user']);
    });
  }
});
