// Request decoding and encoding details the golden fixtures do not pin down: how flat input items
// group into IR messages, what cannot be translated (400 naming the field), strict-mode defaults,
// and the rule that only OpenAI-issued reasoning is replayed to OpenAI.
import { describe, expect, it } from 'vitest';
import type { ChatRequest, Message } from '../../../server/ir/index.ts';
import { failureOf } from '../support/translate.ts';
import { schemaErrors } from '../support/validators.ts';
import { LANE, SCHEMAS, codec } from './support.ts';

const decode = (body: Record<string, unknown>): ChatRequest => {
  expect(schemaErrors(SCHEMAS.request, body)).toEqual([]);
  return codec.decodeRequest(structuredClone(body), {});
};
const text = (t: string) => ({ type: 'text' as const, text: t });
const request = (messages: Message[], extra: Partial<ChatRequest> = {}): ChatRequest => ({
  model: 'claude',
  messages,
  stream: false,
  source: 'anthropic',
  unmapped: [],
  ...extra,
});

describe('Responses decodeRequest', () => {
  it('puts instructions first as a system message, and reads string input as one user message', () => {
    expect(decode({ model: 'm', instructions: 'Be brief.', input: 'Hi' }).messages).toEqual([
      { role: 'system', content: [text('Be brief.')] },
      { role: 'user', content: [text('Hi')] },
    ]);
  });

  it('gathers one assistant turn from reasoning, message and function calls; a second answer opens a new turn', () => {
    const messages = decode({
      model: 'm',
      input: [
        { role: 'user', content: 'Go' },
        { type: 'reasoning', id: 'rs_1', summary: [] },
        { role: 'assistant', content: 'Calling.' },
        { type: 'function_call', call_id: 'call_1', name: 'f', arguments: '{}' },
        { type: 'function_call_output', call_id: 'call_1', output: 'ok' },
        { role: 'assistant', content: [{ type: 'output_text', text: 'First.' }] },
        { role: 'assistant', content: [{ type: 'output_text', text: 'Second.' }] },
      ],
    }).messages;
    expect(messages).toEqual([
      { role: 'user', content: [text('Go')] },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: '', origin: 'responses', id: 'rs_1' },
          text('Calling.'),
          { type: 'tool_call', id: 'call_1', name: 'f', arguments: '{}' },
        ],
      },
      { role: 'tool', content: [{ type: 'tool_result', callId: 'call_1', content: [text('ok')], isError: false }] },
      { role: 'assistant', content: [text('First.')] },
      { role: 'assistant', content: [text('Second.')] },
    ]);
  });

  it('takes raw reasoning text when there is no summary, and keeps encrypted_content untouched', () => {
    const [, assistant] = decode({
      model: 'm',
      input: [
        { role: 'user', content: 'x' },
        { type: 'reasoning', id: 'rs_2', summary: [], content: [{ type: 'reasoning_text', text: 'think' }], encrypted_content: 'gAAA+/=' },
      ],
    }).messages;
    expect(assistant?.content).toEqual([{ type: 'reasoning', text: 'think', redacted: 'gAAA+/=', origin: 'responses', id: 'rs_2' }]);
  });

  it('reads function tools as strict unless they say strict: false, as Responses does', () => {
    const tools = decode({
      model: 'm',
      input: 'x',
      tools: [
        { type: 'function', name: 'a', parameters: null },
        { type: 'function', name: 'b', parameters: { type: 'object' }, strict: false },
      ],
    }).tools;
    expect(tools).toEqual([
      { name: 'a', parameters: { type: 'object', properties: {} }, strict: true },
      { name: 'b', parameters: { type: 'object' }, strict: false },
    ]);
  });

  it('maps tool_choice, text.format, max_output_tokens and the user id', () => {
    const ir = decode({
      model: 'm',
      input: 'x',
      tool_choice: { type: 'function', name: 'f' },
      max_output_tokens: 50,
      user: 'old',
      safety_identifier: 'new',
      text: { format: { type: 'json_schema', name: 'out', schema: { type: 'object' }, strict: true } },
    });
    expect(ir).toMatchObject({
      toolChoice: { type: 'tool', name: 'f' },
      maxTokens: 50,
      user: 'new',
      responseFormat: { type: 'json_schema', name: 'out', schema: { type: 'object' }, strict: true },
    });
  });

  it.each([
    [{ tools: [{ type: 'web_search' }] }, 'tools[0].type'],
    [
      {
        tools: [
          { type: 'function', name: 'f' },
          { type: 'mcp', server_label: 'deepwiki' },
        ],
      },
      'tools[1].type',
    ],
    [{ tool_choice: { type: 'allowed_tools', mode: 'auto', tools: [] } }, 'tool_choice.type'],
    [{ input: [{ type: 'item_reference', id: 'msg_1' }] }, 'input[0].type'],
    [{ input: [{ type: 'web_search_call', id: 'ws_1', status: 'completed' }] }, 'input[0].type'],
    [{ input: [{ role: 'user', content: [{ type: 'input_image', file_id: 'file-1', detail: 'auto' }] }] }, 'input[0].content[0].file_id'],
    [{ input: [{ role: 'user', content: [{ type: 'input_file', file_id: 'file-1' }] }] }, 'input[0].content[0].type'],
    [{ input: [{ type: 'function_call_output', output: 'x' }] }, 'input[0].call_id'],
    [{ text: { format: { type: 'grammar' } } }, 'text.format.type'],
  ])('rejects %j with a 400 naming %s', (extra, param) => {
    expect(failureOf(() => decode({ model: 'm', input: 'x', ...extra }))).toMatchObject({ kind: 'invalid_request', status: 400, param });
  });
});

describe('Responses encodeRequest', () => {
  it('always states strict, false unless the IR says strict (Responses would otherwise force strict mode)', () => {
    const { body } = codec.encodeRequest(
      request([{ role: 'user', content: [text('x')] }], {
        tools: [
          { name: 'a', parameters: { type: 'object' } },
          { name: 'b', parameters: { type: 'object' }, strict: true },
        ],
      }),
      LANE,
    );
    expect(body.tools).toEqual([
      { type: 'function', name: 'a', parameters: { type: 'object' }, strict: false },
      { type: 'function', name: 'b', parameters: { type: 'object' }, strict: true },
    ]);
  });

  it('refuses stop sequences with a 400 naming stop, since Responses has none', () => {
    expect(failureOf(() => codec.encodeRequest(request([{ role: 'user', content: [text('x')] }], { stopSequences: ['END'] }), LANE))).toMatchObject({
      status: 400,
      param: 'stop',
      code: 'unsupported_parameter',
    });
  });

  it('replays only OpenAI-issued reasoning, with its id and encrypted content, and warns about the rest', () => {
    const { body, warnings } = codec.encodeRequest(
      request([
        { role: 'user', content: [text('x')] },
        {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'Mine.', redacted: 'gAAA', origin: 'responses', id: 'rs_1' },
            { type: 'reasoning', text: 'Claude thinking', signature: 'EqQB', origin: 'anthropic' },
            { type: 'reasoning', text: 'DeepSeek thinking' },
            { type: 'reasoning', text: 'No id', origin: 'responses' },
            text('Answer.'),
          ],
        },
      ]),
      LANE,
    );
    expect(body.input).toEqual([
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'x' }] },
      { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Mine.' }], encrypted_content: 'gAAA' },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Answer.', annotations: [] }] },
    ]);
    expect(warnings.map((w) => [w.kind, w.path])).toEqual([
      ['dropped', 'messages[1].content[1]'],
      ['dropped', 'messages[1].content[2]'],
      ['dropped', 'messages[1].content[3]'],
    ]);
  });

  it('writes tool results as function_call_output (text as a string, images as parts) and warns about the error flag', () => {
    const png = { kind: 'base64' as const, mediaType: 'image/png', data: 'iVBOR' };
    const { body, warnings } = codec.encodeRequest(
      request([
        { role: 'user', content: [text('x')] },
        {
          role: 'assistant',
          content: [
            { type: 'tool_call', id: 'toolu_1', name: 'f', arguments: '{}' },
            { type: 'tool_call', id: 'toolu_2', name: 'g', arguments: '{}' },
          ],
        },
        {
          role: 'tool',
          content: [
            { type: 'tool_result', callId: 'toolu_1', content: [text('boom')], isError: true },
            { type: 'tool_result', callId: 'toolu_2', content: [text('a chart:'), { type: 'image', source: png }], isError: false },
          ],
        },
      ]),
      LANE,
    );
    expect(schemaErrors(SCHEMAS.request, body)).toEqual([]);
    expect((body.input as unknown[]).slice(3)).toEqual([
      { type: 'function_call_output', call_id: 'toolu_1', output: 'boom' },
      {
        type: 'function_call_output',
        call_id: 'toolu_2',
        output: [
          { type: 'input_text', text: 'a chart:' },
          { type: 'input_image', image_url: 'data:image/png;base64,iVBOR', detail: 'auto' },
        ],
      },
    ]);
    expect(warnings.map((w) => w.path)).toEqual(['messages[2].content[0].is_error']);
  });

  it('maps sampling, limits, format and user, and asks to stream', () => {
    // A model that takes sampling (OpenAI's reasoning models refuse it: openai-reasoning-sampling.test.ts).
    const lane = { ...LANE, model: 'gpt-4.1' };
    const { body, warnings } = codec.encodeRequest(
      request([{ role: 'user', content: [text('x')] }], {
        stream: true,
        maxTokens: 300,
        temperature: 0.2,
        topP: 0.5,
        topK: 40,
        user: 'u-1',
        toolChoice: { type: 'required' },
        parallelToolCalls: false,
        responseFormat: { type: 'json_schema', schema: { type: 'object' } },
      }),
      lane,
    );
    expect(body).toMatchObject({
      model: lane.model,
      stream: true,
      max_output_tokens: 300,
      temperature: 0.2,
      top_p: 0.5,
      safety_identifier: 'u-1',
      tool_choice: 'required',
      parallel_tool_calls: false,
      text: { format: { type: 'json_schema', name: 'response', schema: { type: 'object' } } },
    });
    expect(warnings.map((w) => w.path)).toEqual(['top_k']);
  });

  it('is pure: the same IR and lane give the same body', () => {
    const ir = request([{ role: 'user', content: [text('x')] }]);
    expect(JSON.stringify(codec.encodeRequest(ir, LANE).body)).toBe(JSON.stringify(codec.encodeRequest(ir, LANE).body));
  });
});
