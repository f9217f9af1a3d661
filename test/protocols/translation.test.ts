// Cross-protocol request translation: a client body decoded by one codec and encoded for a lane of
// the other. Every encoded body must be valid for the target, and every loss must be a warning.
import { describe, expect, it } from 'vitest';
import { GatewayFailure } from '../../server/ir/index.ts';
import { ANTHROPIC_LANE, decode, failureOf, translate } from './support/translate.ts';
import { VALIDATORS, schemaErrors } from './support/validators.ts';
import { codecOf } from './support/codecs.ts';

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
const WEATHER_SCHEMA = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };

function toAnthropic(body: Record<string, unknown>) {
  const encoded = translate('openai', 'anthropic', body);
  expect(schemaErrors(VALIDATORS.anthropic.request, encoded.body)).toEqual([]);
  return encoded;
}

function toOpenAI(body: Record<string, unknown>) {
  const encoded = translate('anthropic', 'openai', body);
  expect(schemaErrors(VALIDATORS.openai.request, encoded.body)).toEqual([]);
  return encoded;
}

const user = (content: unknown) => ({ role: 'user', content });

describe('OpenAI request -> Anthropic', () => {
  it('hoists system and developer messages into `system`, with a reshaped warning for the mid-conversation one', () => {
    const { body, warnings } = toAnthropic({
      model: 'gpt',
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'developer', content: 'Use metric units.' },
        user('Hi'),
        { role: 'assistant', content: 'Hello.' },
        { role: 'system', content: 'Now answer in French.' },
        user('Weather?'),
      ],
    });
    expect(body).toEqual({
      model: 'claude-sonnet-4-5',
      max_tokens: 2048,
      system: [
        { type: 'text', text: 'You are terse.' },
        { type: 'text', text: 'Use metric units.' },
        { type: 'text', text: 'Now answer in French.' },
      ],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Hi' }] },
        { role: 'assistant', content: [{ type: 'text', text: 'Hello.' }] },
        { role: 'user', content: [{ type: 'text', text: 'Weather?' }] },
      ],
    });
    expect(warnings).toEqual([
      {
        kind: 'reshaped',
        path: 'messages[4]',
        message: 'a system message in the middle of the conversation was moved to the top-level system prompt',
      },
    ]);
  });

  it('drops a message author name with a warning (Anthropic messages have none)', () => {
    const { body, warnings } = toAnthropic({ model: 'gpt', messages: [{ role: 'user', name: 'dana', content: 'Hi' }] });
    expect(body.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }]);
    expect(warnings).toEqual([
      { kind: 'dropped', path: 'messages[0].name', message: 'the message author name dropped: the target protocol cannot express it' },
    ]);
  });

  it('sends a single leading system message as a plain string, without warnings', () => {
    const { body, warnings } = toAnthropic({ model: 'gpt', messages: [{ role: 'system', content: 'Be brief.' }, user('Hi')] });
    expect(body.system).toBe('Be brief.');
    expect(warnings).toEqual([]);
  });

  it('parses tool arguments into `input` objects and merges consecutive tool results into one user turn', () => {
    const { body, warnings } = toAnthropic({
      model: 'gpt',
      messages: [
        user('Weather in Paris and Tokyo?'),
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_Qm3vX9pL2kT7wR4yN8bJ5cHd', type: 'function', function: { name: 'get_weather', arguments: '{"city": "Paris"}' } },
            { id: 'call_Zt6nB1sK8fW3qE7uY2mA4gPr', type: 'function', function: { name: 'get_weather', arguments: '' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_Qm3vX9pL2kT7wR4yN8bJ5cHd', content: '18°C' },
        { role: 'tool', tool_call_id: 'call_Zt6nB1sK8fW3qE7uY2mA4gPr', content: [{ type: 'text', text: '24°C' }] },
        user('Which is warmer?'),
      ],
      tools: [{ type: 'function', function: { name: 'get_weather', description: 'Weather for a city.', parameters: WEATHER_SCHEMA } }],
    });
    expect(body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Weather in Paris and Tokyo?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'call_Qm3vX9pL2kT7wR4yN8bJ5cHd', name: 'get_weather', input: { city: 'Paris' } },
          // Models stream "" for a call without arguments: that is the empty object.
          { type: 'tool_use', id: 'call_Zt6nB1sK8fW3qE7uY2mA4gPr', name: 'get_weather', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'call_Qm3vX9pL2kT7wR4yN8bJ5cHd', content: [{ type: 'text', text: '18°C' }] },
          { type: 'tool_result', tool_use_id: 'call_Zt6nB1sK8fW3qE7uY2mA4gPr', content: [{ type: 'text', text: '24°C' }] },
          { type: 'text', text: 'Which is warmer?' },
        ],
      },
    ]);
    expect(body.tools).toEqual([{ name: 'get_weather', description: 'Weather for a city.', input_schema: WEATHER_SCHEMA }]);
    expect(warnings).toEqual([]);
  });

  it('rejects tool arguments that are not a JSON object with a 400 naming the field', () => {
    const error = failureOf(() =>
      translate('openai', 'anthropic', {
        model: 'gpt',
        messages: [
          user('Hi'),
          { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '[1, 2]' } }] },
          { role: 'tool', tool_call_id: 'call_1', content: 'ok' },
        ],
      }),
    );
    expect(error).toMatchObject({ kind: 'invalid_request', status: 400, param: 'messages[1].content[0].arguments' });
  });

  it('turns image URLs and data URLs into url and base64 sources, dropping `detail` with a warning', () => {
    const { body, warnings } = toAnthropic({
      model: 'gpt',
      messages: [
        user([
          { type: 'text', text: 'Compare these.' },
          { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg', detail: 'low' } },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
        ]),
      ],
    });
    expect(body.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Compare these.' },
          { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
        ],
      },
    ]);
    expect(warnings).toEqual([
      {
        kind: 'dropped',
        path: 'messages[0].content[1].detail',
        message: 'image detail level dropped: the target protocol cannot express it',
      },
    ]);
  });

  it('takes max_tokens from the lane default when the client gave none, and from the client otherwise', () => {
    expect(toAnthropic({ model: 'gpt', messages: [user('Hi')] }).body.max_tokens).toBe(ANTHROPIC_LANE.defaultMaxTokens);
    expect(toAnthropic({ model: 'gpt', messages: [user('Hi')], max_completion_tokens: 77 }).body.max_tokens).toBe(77);
    expect(toAnthropic({ model: 'gpt', messages: [user('Hi')], max_tokens: 55 }).body.max_tokens).toBe(55);
  });

  it('maps tool_choice required to any and parallel_tool_calls false to disable_parallel_tool_use', () => {
    const tools = [{ type: 'function', function: { name: 'get_weather', parameters: WEATHER_SCHEMA } }];
    const base = { model: 'gpt', messages: [user('Hi')], tools };
    expect(toAnthropic({ ...base, tool_choice: 'required' }).body.tool_choice).toEqual({ type: 'any' });
    expect(toAnthropic({ ...base, tool_choice: 'required', parallel_tool_calls: false }).body.tool_choice).toEqual({
      type: 'any',
      disable_parallel_tool_use: true,
    });
    expect(toAnthropic({ ...base, parallel_tool_calls: false }).body.tool_choice).toEqual({ type: 'auto', disable_parallel_tool_use: true });
    expect(toAnthropic({ ...base, tool_choice: { type: 'function', function: { name: 'get_weather' } } }).body.tool_choice).toEqual({
      type: 'tool',
      name: 'get_weather',
    });
    expect(toAnthropic({ ...base, tool_choice: 'none' }).body.tool_choice).toEqual({ type: 'none' });
    expect(toAnthropic({ ...base, parallel_tool_calls: true }).body).not.toHaveProperty('tool_choice');
  });

  it('maps stop (string or array), temperature, top_p, user and stream', () => {
    const { body, warnings } = toAnthropic({
      model: 'gpt',
      messages: [user('Hi')],
      stop: 'END',
      temperature: 0.2,
      top_p: 0.9,
      user: 'user-7f3a9c',
      stream: true,
    });
    expect(body).toMatchObject({ stop_sequences: ['END'], temperature: 0.2, top_p: 0.9, metadata: { user_id: 'user-7f3a9c' }, stream: true });
    expect(warnings).toEqual([]);
  });

  it('rejects response_format json_object with a 400 naming response_format', () => {
    const run = () => translate('openai', 'anthropic', { model: 'gpt', messages: [user('Hi')], response_format: { type: 'json_object' } });
    expect(run).toThrow(GatewayFailure);
    expect(failureOf(run)).toMatchObject({ kind: 'invalid_request', status: 400, param: 'response_format', code: 'unsupported_parameter' });
  });

  it('maps a json_schema response_format to output_config, dropping the schema name with a warning', () => {
    const schema = { type: 'object', properties: { answer: { type: 'string' } }, required: ['answer'], additionalProperties: false };
    const { body, warnings } = toAnthropic({
      model: 'gpt',
      messages: [user('Hi')],
      response_format: { type: 'json_schema', json_schema: { name: 'reply', schema, strict: true } },
    });
    expect(body.output_config).toEqual({ format: { type: 'json_schema', schema } });
    expect(warnings).toEqual([
      {
        kind: 'dropped',
        path: 'response_format.json_schema.name',
        message: 'the schema name dropped: the target protocol cannot express it',
      },
    ]);
  });
});

describe('Anthropic request -> OpenAI', () => {
  const signature = 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds2F4pWr7cP0Kq9vT8nYzX3uL5mQwE1tRb6HjZsA4kD7gN2yV==';
  const conversation = {
    model: 'claude',
    max_tokens: 1024,
    system: 'You are terse.',
    messages: [
      user('Weather in Paris and Tokyo?'),
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Checking both.' },
          { type: 'tool_use', id: 'toolu_01A09q90qw90lq917835lq9', name: 'get_weather', input: { city: 'Paris', unit: 'celsius' } },
          { type: 'tool_use', id: 'toolu_01BbTzH6tFqYk2gXw7PcN4sM', name: 'get_weather', input: { city: 'Tokyo' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_01A09q90qw90lq917835lq9', content: '18°C' },
          {
            type: 'tool_result',
            tool_use_id: 'toolu_01BbTzH6tFqYk2gXw7PcN4sM',
            content: [
              { type: 'text', text: 'timeout' },
              { type: 'text', text: 'retry later' },
            ],
          },
          { type: 'text', text: 'Which is warmer?' },
        ],
      },
    ],
    tools: [{ name: 'get_weather', description: 'Weather for a city.', input_schema: WEATHER_SCHEMA }],
    tool_choice: { type: 'tool', name: 'get_weather' },
  };

  it('turns system into a system message, tool_use into tool_calls with JSON string arguments, and each tool_result into one tool message', () => {
    const { body, warnings } = toOpenAI(conversation);
    expect(body).toEqual({
      model: 'gpt-4.1',
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'Weather in Paris and Tokyo?' },
        {
          role: 'assistant',
          content: 'Checking both.',
          tool_calls: [
            { id: 'toolu_01A09q90qw90lq917835lq9', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris","unit":"celsius"}' } },
            { id: 'toolu_01BbTzH6tFqYk2gXw7PcN4sM', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Tokyo"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'toolu_01A09q90qw90lq917835lq9', content: '18°C' },
        { role: 'tool', tool_call_id: 'toolu_01BbTzH6tFqYk2gXw7PcN4sM', content: 'timeout\n\nretry later' },
        { role: 'user', content: 'Which is warmer?' },
      ],
      tools: [{ type: 'function', function: { name: 'get_weather', description: 'Weather for a city.', parameters: WEATHER_SCHEMA } }],
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
      max_completion_tokens: 1024,
    });
    expect(warnings).toEqual([]);
  });

  it('drops is_error with a warning', () => {
    const messages = structuredClone(conversation.messages);
    (messages[2]!.content as Record<string, unknown>[])[1]!.is_error = true;
    const { body, warnings } = toOpenAI({ ...conversation, messages });
    expect((body.messages as unknown[])[4]).toEqual({ role: 'tool', tool_call_id: 'toolu_01BbTzH6tFqYk2gXw7PcN4sM', content: 'timeout\n\nretry later' });
    // Paths index IR messages: the hoisted system prompt is IR message 0, the tool results IR message 3.
    expect(warnings).toEqual([
      {
        kind: 'dropped',
        path: 'messages[3].content[1].is_error',
        message: 'the tool-error flag (OpenAI tool messages have none) dropped: the target protocol cannot express it',
      },
    ]);
  });

  it('drops signed, unsigned and redacted thinking with a warning each', () => {
    const { body, warnings } = toOpenAI({
      model: 'claude',
      max_tokens: 1024,
      messages: [
        user('Hi'),
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'Greet back.', signature },
            { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix' },
            { type: 'text', text: 'Hello!' },
          ],
        },
        user('Bye'),
      ],
    });
    expect(body.messages).toEqual([
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: 'Hello!' },
      { role: 'user', content: 'Bye' },
    ]);
    const message = 'reasoning blocks (OpenAI Chat cannot replay them) dropped: the target protocol cannot express it';
    expect(warnings).toEqual([
      { kind: 'dropped', path: 'messages[1].content[0]', message },
      { kind: 'dropped', path: 'messages[1].content[1]', message },
    ]);
    // Unsigned thinking (from another provider's history) is dropped the same way.
    const unsigned = codecOf('openai').encodeRequest(
      {
        ...decode('anthropic', { model: 'claude', max_tokens: 10, messages: [user('Hi')] }),
        messages: [
          {
            role: 'assistant',
            content: [
              { type: 'reasoning', text: 'hmm' },
              { type: 'text', text: 'Yes.' },
            ],
          },
        ],
      },
      { model: 'gpt-4.1', defaultMaxTokens: 2048 },
    );
    expect(unsigned.body.messages).toEqual([{ role: 'assistant', content: 'Yes.' }]);
    expect(unsigned.warnings).toEqual([{ kind: 'dropped', path: 'messages[0].content[0]', message }]);
  });

  it('drops top_k with a warning and keeps temperature and top_p', () => {
    const { body, warnings } = toOpenAI({ model: 'claude', max_tokens: 10, messages: [user('Hi')], top_k: 40, temperature: 0.3, top_p: 0.8 });
    expect(body).toMatchObject({ temperature: 0.3, top_p: 0.8 });
    expect(body).not.toHaveProperty('top_k');
    expect(warnings).toEqual([{ kind: 'dropped', path: 'top_k', message: 'top-k sampling dropped: the target protocol cannot express it' }]);
  });

  it('asks for stream usage whenever it streams', () => {
    const { body } = toOpenAI({ model: 'claude', max_tokens: 10, messages: [user('Hi')], stream: true });
    expect(body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    expect(toOpenAI({ model: 'claude', max_tokens: 10, messages: [user('Hi')] }).body).not.toHaveProperty('stream_options');
  });

  it('keeps system blocks with cache_control as text parts and drops the hint with a warning', () => {
    const { body, warnings } = toOpenAI({
      model: 'claude',
      max_tokens: 10,
      system: [
        { type: 'text', text: 'Policy.', cache_control: { type: 'ephemeral' } },
        { type: 'text', text: 'Date: 2026-11-22.' },
      ],
      messages: [user('Hi')],
    });
    expect((body.messages as unknown[])[0]).toEqual({
      role: 'system',
      content: [
        { type: 'text', text: 'Policy.' },
        { type: 'text', text: 'Date: 2026-11-22.' },
      ],
    });
    expect(warnings).toEqual([
      { kind: 'dropped', path: 'messages[0].content[0].cache_control', message: 'prompt cache hints dropped: the target protocol cannot express it' },
    ]);
  });

  it('drops cache_control on assistant text and inside tool results with a warning each', () => {
    const ephemeral = { type: 'ephemeral' };
    const { body, warnings } = toOpenAI({
      model: 'claude',
      max_tokens: 10,
      messages: [
        user('Hi'),
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Calling.', cache_control: ephemeral },
            { type: 'tool_use', id: 'toolu_01', name: 'f', input: {} },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: [{ type: 'text', text: 'done', cache_control: ephemeral }] }] },
      ],
    });
    expect((body.messages as unknown[]).slice(1)).toEqual([
      { role: 'assistant', content: 'Calling.', tool_calls: [{ id: 'toolu_01', type: 'function', function: { name: 'f', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'toolu_01', content: 'done' },
    ]);
    const message = 'prompt cache hints dropped: the target protocol cannot express it';
    expect(warnings).toEqual([
      { kind: 'dropped', path: 'messages[1].content[0].cache_control', message },
      { kind: 'dropped', path: 'messages[2].content[0].content[0].cache_control', message },
    ]);
  });

  it('maps tool_choice any to required, disable_parallel_tool_use to parallel_tool_calls false, images to URLs, metadata.user_id to user', () => {
    const { body } = toOpenAI({
      model: 'claude',
      max_tokens: 10,
      metadata: { user_id: 'user-7f3a9c' },
      tools: [{ name: 'get_weather', input_schema: WEATHER_SCHEMA }],
      tool_choice: { type: 'any', disable_parallel_tool_use: true },
      messages: [
        user([
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
          { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
          { type: 'text', text: 'Compare.' },
        ]),
      ],
    });
    expect(body).toMatchObject({ tool_choice: 'required', parallel_tool_calls: false, user: 'user-7f3a9c' });
    expect(body.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
          { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg' } },
          { type: 'text', text: 'Compare.' },
        ],
      },
    ]);
  });

  it('rejects an image inside a tool result with a 400 (OpenAI tool messages hold only text)', () => {
    const error = failureOf(() =>
      translate('anthropic', 'openai', {
        model: 'claude',
        max_tokens: 10,
        messages: [
          user('Screenshot?'),
          { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_01', name: 'screenshot', input: {} }] },
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 'toolu_01', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } }] },
            ],
          },
        ],
      }),
    );
    expect(error).toMatchObject({ kind: 'invalid_request', status: 400, param: 'messages[2].content[0].content[0]', code: 'unsupported_parameter' });
  });
});
