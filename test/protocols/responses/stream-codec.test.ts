// Stream details the golden fixtures do not pin down. Decoder: servers that skip the part events or
// send an item only when it is done, built-in tool items, raw reasoning text, the incomplete and
// function-call endings. Encoder: message items shared by text blocks in a row, reasoning only
// when OpenAI issued it, a streamed refusal ending as a content filter, blocks left open.
import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../../server/ir/index.ts';
import { codec, decodeStream, payloads, streamProblems } from './support.ts';
import { idWithSignature } from '../../../server/protocols/shared/signature-carrier.ts';
import { carriableThinking } from '../../../server/protocols/shared/thinking-carrier.ts';

const frame = (type: string, payload: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...payload })}\n\n`;
const created = frame('response.created', {
  sequence_number: 0,
  response: { id: 'resp_1', object: 'response', created_at: 1, status: 'in_progress', model: 'gpt-5.5', output: [] },
});
const completed = (output: unknown[] = [], status = 'completed', reason?: string) =>
  frame(`response.${status === 'completed' ? 'completed' : 'incomplete'}`, {
    sequence_number: 99,
    response: {
      id: 'resp_1',
      object: 'response',
      created_at: 1,
      status,
      incomplete_details: reason === undefined ? null : { reason },
      model: 'gpt-5.5',
      output,
      usage: { input_tokens: 5, output_tokens: 2, total_tokens: 7 },
    },
  });
const decode = (text: string) => decodeStream([Buffer.from(text)]);
const USAGE = { inputTokens: 5, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 };
const END = (reason: string, raw: string): StreamEvent[] => [
  { type: 'finish', finish: { reason: reason as 'stop', raw } },
  { type: 'usage', usage: USAGE },
  { type: 'message_stop' },
];
const START: StreamEvent = { type: 'message_start', id: 'resp_1', model: 'gpt-5.5' };

describe('Responses stream decoder', () => {
  it('opens a text block at the first delta when a server skips the content part events', () => {
    const text =
      created +
      frame('response.output_item.added', { output_index: 0, item: { id: 'msg_1', type: 'message', role: 'assistant', status: 'in_progress', content: [] } }) +
      frame('response.output_text.delta', { item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'Hi' }) +
      frame('response.output_item.done', {
        output_index: 0,
        item: { id: 'msg_1', type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Hi', annotations: [] }] },
      }) +
      completed();
    expect(decode(text)).toEqual([
      START,
      { type: 'block_start', index: 0, block: { type: 'text' } },
      { type: 'block_delta', index: 0, delta: { type: 'text', text: 'Hi' } },
      { type: 'block_stop', index: 0 },
      ...END('stop', 'completed'),
    ]);
  });

  it('takes whole items from output_item.done when nothing was streamed', () => {
    const text =
      created +
      frame('response.output_item.done', {
        output_index: 0,
        item: { id: 'msg_1', type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Calling.', annotations: [] }] },
      }) +
      frame('response.output_item.done', {
        output_index: 1,
        item: { id: 'fc_1', type: 'function_call', call_id: 'call_1', name: 'f', arguments: '{"a":1}', status: 'completed' },
      }) +
      completed();
    expect(decode(text)).toEqual([
      START,
      { type: 'block_start', index: 0, block: { type: 'text' } },
      { type: 'block_delta', index: 0, delta: { type: 'text', text: 'Calling.' } },
      { type: 'block_stop', index: 0 },
      { type: 'block_start', index: 1, block: { type: 'tool_call', id: 'call_1', name: 'f' } },
      { type: 'block_delta', index: 1, delta: { type: 'tool_arguments', partialJson: '{"a":1}' } },
      { type: 'block_stop', index: 1 },
      ...END('tool_calls', 'completed'),
    ]);
  });

  it('skips built-in tool items and annotation events, and reads raw reasoning text', () => {
    const text =
      created +
      frame('response.output_item.added', { output_index: 0, item: { id: 'ws_1', type: 'web_search_call', status: 'in_progress' } }) +
      frame('response.web_search_call.searching', { output_index: 0, item_id: 'ws_1' }) +
      frame('response.output_item.done', { output_index: 0, item: { id: 'ws_1', type: 'web_search_call', status: 'completed' } }) +
      frame('response.output_item.added', { output_index: 1, item: { id: 'rs_1', type: 'reasoning', summary: [] } }) +
      frame('response.reasoning_text.delta', { item_id: 'rs_1', output_index: 1, content_index: 0, delta: 'hmm' }) +
      frame('response.output_item.done', {
        output_index: 1,
        item: { id: 'rs_1', type: 'reasoning', summary: [], content: [{ type: 'reasoning_text', text: 'hmm' }] },
      }) +
      frame('response.output_text.annotation.added', {
        item_id: 'msg_1',
        output_index: 2,
        content_index: 0,
        annotation_index: 0,
        annotation: { type: 'url_citation' },
      }) +
      completed();
    expect(decode(text)).toEqual([
      START,
      { type: 'block_start', index: 0, block: { type: 'reasoning', origin: 'responses', id: 'rs_1' } },
      { type: 'block_delta', index: 0, delta: { type: 'reasoning', text: 'hmm' } },
      { type: 'block_stop', index: 0 },
      ...END('stop', 'completed'),
    ]);
  });

  it.each([
    ['content_filter', 'content_filter'],
    ['max_output_tokens', 'length'],
    ['max_messages', 'other'],
  ])('reads response.incomplete with reason %s as %s', (reason, expected) => {
    expect(decode(created + completed([], 'incomplete', reason)).at(-3)).toEqual({ type: 'finish', finish: { reason: expected, raw: reason } });
  });

  it('calls it tool_calls when the final output holds a function call the events never showed', () => {
    const output = [{ id: 'fc_1', type: 'function_call', call_id: 'call_1', name: 'f', arguments: '{}', status: 'completed' }];
    expect(decode(created + completed(output)).at(-3)).toEqual({ type: 'finish', finish: { reason: 'tool_calls', raw: 'completed' } });
  });

  it('starts the IR message from the terminal event when response.created never came', () => {
    expect(decode(completed())).toEqual([START, ...END('stop', 'completed')]);
  });
});

describe('Responses stream encoder', () => {
  const encode = (events: StreamEvent[]) => {
    const encoder = codec.createStreamEncoder({ streamUsage: true });
    const text = events.map((e) => encoder.encode(e)).join('');
    expect(streamProblems(text)).toEqual([]);
    return { events: payloads(text), warnings: encoder.warnings };
  };
  /** The output the terminal event repeats. */
  const finalOutput = <T = unknown>(events: readonly object[]): T[] => (events.at(-1) as { response: { output: T[] } }).response.output;
  const text = (index: number, t: string): StreamEvent[] => [
    { type: 'block_start', index, block: { type: 'text' } },
    { type: 'block_delta', index, delta: { type: 'text', text: t } },
    { type: 'block_stop', index },
  ];

  it('puts text blocks in a row into one message item, and text after a tool call into a new one', () => {
    const { events } = encode([
      START,
      ...text(0, 'a'),
      ...text(1, 'b'),
      { type: 'block_start', index: 2, block: { type: 'tool_call', id: 'call_1', name: 'f' } },
      { type: 'block_stop', index: 2 },
      ...text(3, 'c'),
      { type: 'message_stop' },
    ]);
    const output = finalOutput<{ type: string; content?: { text: string }[] }>(events);
    expect(output.map((item) => [item.type, item.content?.map((c) => c.text)])).toEqual([
      ['message', ['a', 'b']],
      ['function_call', undefined],
      ['message', ['c']],
    ]);
    expect(events.filter((e) => e.type === 'response.content_part.added').map((e) => [e.output_index, e.content_index])).toEqual([
      [0, 0],
      [0, 1],
      [2, 0],
    ]);
  });

  it("shows OpenAI-issued reasoning and carries Claude's signed thinking, warning once about the rest", () => {
    const { events, warnings } = encode([
      START,
      { type: 'block_start', index: 4, block: { type: 'reasoning', origin: 'gemini' } },
      { type: 'block_delta', index: 4, delta: { type: 'reasoning', text: 'Gemini thinks' } },
      { type: 'block_stop', index: 4 },
      { type: 'block_start', index: 0, block: { type: 'reasoning', origin: 'anthropic' } },
      { type: 'block_delta', index: 0, delta: { type: 'reasoning', text: 'Claude thinks' } },
      { type: 'block_delta', index: 0, delta: { type: 'signature', signature: 'EqQB' } },
      { type: 'block_stop', index: 0 },
      { type: 'block_start', index: 1, block: { type: 'redacted_reasoning', data: 'EmwK', origin: 'anthropic' } },
      { type: 'block_stop', index: 1 },
      { type: 'block_start', index: 2, block: { type: 'redacted_reasoning', data: 'gAAAAB==', origin: 'responses' } },
      { type: 'block_stop', index: 2 },
      ...text(3, 'ok'),
      { type: 'message_stop' },
    ]);
    const output = finalOutput(events);
    expect(output).toMatchObject([
      {
        type: 'reasoning',
        summary: [{ type: 'summary_text', text: 'Claude thinks' }],
        encrypted_content: carriableThinking({ type: 'reasoning', text: 'Claude thinks', signature: 'EqQB', origin: 'anthropic' }),
      },
      { type: 'reasoning', summary: [], encrypted_content: carriableThinking({ type: 'reasoning', text: '', redacted: 'EmwK', origin: 'anthropic' }) },
      { type: 'reasoning', summary: [], encrypted_content: 'gAAAAB==' },
      { type: 'message' },
    ]);
    expect(warnings.map((w) => [w.kind, w.path])).toEqual([['dropped', 'reasoning']]);
  });

  it('ends a streamed refusal as incomplete with reason content_filter (the text has already gone out)', () => {
    const { events } = encode([START, ...text(0, 'No.'), { type: 'finish', finish: { reason: 'refusal', raw: 'refusal' } }, { type: 'message_stop' }]);
    expect(events.at(-1)).toMatchObject({ type: 'response.incomplete', response: { status: 'incomplete', incomplete_details: { reason: 'content_filter' } } });
  });

  it('finishes blocks still open at message_stop before the terminal event, and takes usage known at the start', () => {
    const usage = { inputTokens: 9, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 };
    const { events } = encode([
      { ...START, usage },
      { type: 'block_start', index: 0, block: { type: 'tool_call', id: 'call_1', name: 'f' } },
      { type: 'block_delta', index: 0, delta: { type: 'tool_arguments', partialJson: '{}' } },
      { type: 'message_stop' },
    ]);
    expect(events.slice(-3).map((e) => e.type)).toEqual(['response.function_call_arguments.done', 'response.output_item.done', 'response.completed']);
    expect(events.at(-1)).toMatchObject({
      response: { output: [{ type: 'function_call', arguments: '{}', status: 'completed' }], usage: { input_tokens: 9, output_tokens: 1 } },
    });
  });

  it('carries a Gemini tool-call signature in the call_id, without a warning', () => {
    const { warnings, events } = encode([
      START,
      { type: 'block_start', index: 0, block: { type: 'tool_call', id: 'c', name: 'f', signature: { origin: 'gemini', value: 'sig' } } },
      { type: 'block_stop', index: 0 },
      { type: 'message_stop' },
    ]);
    expect(warnings).toEqual([]);
    expect(events.at(-1)).toMatchObject({
      response: { output: [{ type: 'function_call', call_id: idWithSignature('c', { origin: 'gemini', value: 'sig' }) }] },
    });
  });

  it('starts with response.created and response.in_progress even when the IR stream starts without message_start', () => {
    const { events } = encode([...text(0, 'x'), { type: 'message_stop' }]);
    expect(events.slice(0, 2).map((e) => e.type)).toEqual(['response.created', 'response.in_progress']);
  });
});
