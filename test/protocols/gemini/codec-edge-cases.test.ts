// Gemini-specific rules of the codec, one by one: call ids paired by name, tool-result wrapping,
// schema dialects, snake_case bodies, signatures, errors, finish reasons, usage and stream framing.
import { describe, expect, it } from 'vitest';
import { GatewayFailure, gatewayError, type ChatRequest, type ChatResponse, type StreamEvent } from '../../../server/ir/index.ts';
import { derivedCallId } from '../../../server/protocols/gemini/call-ids.ts';
import { JsonArrayParser } from '../../../server/protocols/gemini/json-array-parser.ts';
import { openApiToJsonSchema } from '../../../server/protocols/gemini/openapi-schema.ts';
import { SCHEMAS, byteByByte, codec, decodeChunks, encodeEvents, schemaErrors, splitAt } from './support.ts';

const ORIGIN = { pathModel: 'gemini-2.5-flash' };
const LANE = { model: 'gemini-2.5-flash', defaultMaxTokens: 2048 };
const decode = (body: Record<string, unknown>) => {
  expect(schemaErrors(SCHEMAS.request, body)).toEqual([]);
  return codec.decodeRequest(structuredClone(body), ORIGIN);
};
const call = (name: string, args: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({ functionCall: { name, args, ...extra } });
const result = (name: string, response: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ functionResponse: { name, response, ...extra } });
function failure(fn: () => unknown): { status: number; param?: string | null; message: string } {
  try {
    fn();
  } catch (e) {
    if (e instanceof GatewayFailure) return e.error;
    throw e;
  }
  throw new Error('expected a GatewayFailure');
}

describe('function call ids (Gemini pairs results with calls by name)', () => {
  it('id-less results take the oldest open call of their name, across turns and out of order', () => {
    const request = decode({
      contents: [
        { role: 'user', parts: [{ text: 'Weather in Paris, then time in Tokyo, then weather in Oslo.' }] },
        { role: 'model', parts: [call('get_weather', { city: 'Paris' }), call('get_time', { tz: 'Asia/Tokyo' })] },
        { role: 'user', parts: [result('get_time', { output: '09:00' }), result('get_weather', { output: 'sunny' })] },
        { role: 'model', parts: [call('get_weather', { city: 'Oslo' })] },
        { role: 'user', parts: [result('get_weather', { output: 'snow' })] },
      ],
    });
    const calls = request.messages
      .flatMap((m) => m.content)
      .filter((b) => b.type === 'tool_call')
      .map((b) => [b.name, b.id]);
    const results = request.messages
      .flatMap((m) => m.content)
      .filter((b) => b.type === 'tool_result')
      .map((b) => b.callId);
    expect(calls).toEqual([
      ['get_weather', 'call_get_weather_0'],
      ['get_time', 'call_get_time_0'],
      ['get_weather', 'call_get_weather_1'],
    ]);
    expect(results).toEqual(['call_get_time_0', 'call_get_weather_0', 'call_get_weather_1']);
  });

  it('explicit ids are kept on both sides, and an explicit result id closes that call', () => {
    const request = decode({
      contents: [
        { role: 'model', parts: [call('f', {}, { id: 'fc_1' }), call('f', {}, { id: 'fc_2' })] },
        { role: 'user', parts: [result('f', { output: 'b' }, { id: 'fc_2' }), result('f', { output: 'a' })] },
      ],
    });
    expect(request.messages[1]?.content.map((b) => (b.type === 'tool_result' ? b.callId : ''))).toEqual(['fc_2', 'fc_1']);
  });

  it('a result no earlier call of its name waits for is a 400 naming it', () => {
    const error = failure(() => decode({ contents: [{ role: 'user', parts: [result('f', { output: 'x' })] }] }));
    expect(error).toMatchObject({ status: 400, param: 'contents[0].parts[0].functionResponse' });
  });

  it('derived ids are charset-safe and at most 64 characters, keeping the ordinal', () => {
    expect(derivedCallId('ns.tool:run', 3)).toBe('call_ns_tool_run_3');
    const long = derivedCallId('x'.repeat(100), 12, 'RespId');
    expect(long).toHaveLength(64);
    expect(long).toMatch(/^call_RespId_x+_12$/);
  });

  it('encoding writes no ids (the Gemini API refuses them) and names each result after its call', () => {
    const request: ChatRequest = {
      model: 'm',
      stream: false,
      source: 'openai',
      unmapped: [],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Go' }] },
        { role: 'assistant', content: [{ type: 'tool_call', id: 'call_abc', name: 'lookup', arguments: '{"q": "x"}' }] },
        { role: 'tool', content: [{ type: 'tool_result', callId: 'call_abc', content: [{ type: 'text', text: 'found' }], isError: false }] },
        { role: 'user', content: [{ type: 'text', text: 'Thanks' }] },
      ],
    };
    const { body, warnings } = codec.encodeRequest(request, LANE);
    expect(warnings).toEqual([]);
    expect(body.contents).toEqual([
      { role: 'user', parts: [{ text: 'Go' }] },
      { role: 'model', parts: [{ functionCall: { name: 'lookup', args: { q: 'x' } } }] },
      { role: 'user', parts: [{ functionResponse: { name: 'lookup', response: { output: 'found' } } }, { text: 'Thanks' }] },
    ]);
  });

  it("a response's id-less calls get ids scoped by the response id, so later turns do not repeat them", () => {
    const response = (id: string) =>
      codec.decodeResponse({
        candidates: [{ content: { role: 'model', parts: [call('f'), call('f')] }, finishReason: 'STOP', index: 0 }],
        responseId: id,
      });
    const ids = (r: ChatResponse) => r.content.map((b) => (b.type === 'tool_call' ? b.id : ''));
    expect(ids(response('turn1'))).toEqual(['call_turn1_f_0', 'call_turn1_f_1']);
    expect(ids(response('turn2'))).toEqual(['call_turn2_f_0', 'call_turn2_f_1']);
  });
});

describe('tool results', () => {
  it('decode: output/result/error alone are unwrapped, anything else is its JSON text; media parts are images', () => {
    const request = decode({
      contents: [
        { role: 'model', parts: [call('a'), call('b'), call('c'), call('d')] },
        {
          role: 'user',
          parts: [
            result('a', { result: 'plain' }),
            result('b', { error: 'city not found' }),
            result('c', { output: { nested: true } }),
            result('d', { output: '' }, { parts: [{ inlineData: { mimeType: 'image/png', data: 'AAAA' } }] }),
          ],
        },
      ],
    });
    expect(request.messages[1]?.content).toEqual([
      { type: 'tool_result', callId: 'call_a_0', content: [{ type: 'text', text: 'plain' }], isError: false },
      { type: 'tool_result', callId: 'call_b_0', content: [{ type: 'text', text: 'city not found' }], isError: true },
      { type: 'tool_result', callId: 'call_c_0', content: [{ type: 'text', text: '{"output":{"nested":true}}' }], isError: false },
      {
        type: 'tool_result',
        callId: 'call_d_0',
        content: [{ type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'AAAA' } }],
        isError: false,
      },
    ]);
  });

  it('encode: an error result is {"error": text}; several texts are joined; images travel as function response parts', () => {
    const request: ChatRequest = {
      model: 'm',
      stream: false,
      source: 'anthropic',
      unmapped: [],
      messages: [
        {
          role: 'assistant',
          content: [
            { type: 'tool_call', id: 't1', name: 'f', arguments: '' },
            { type: 'tool_call', id: 't2', name: 'g', arguments: '{}' },
          ],
        },
        {
          role: 'tool',
          content: [
            { type: 'tool_result', callId: 't1', content: [{ type: 'text', text: 'bad input' }], isError: true },
            {
              type: 'tool_result',
              callId: 't2',
              content: [
                { type: 'text', text: 'one' },
                { type: 'text', text: 'two' },
                { type: 'image', source: { kind: 'url', url: 'https://example.com/chart.png' } },
              ],
              isError: false,
            },
          ],
        },
      ],
    };
    const { body } = codec.encodeRequest(request, LANE);
    expect(schemaErrors(SCHEMAS.request, body)).toEqual([]);
    expect((body.contents as { parts: unknown[] }[])[1]?.parts).toEqual([
      { functionResponse: { name: 'f', response: { error: 'bad input' } } },
      {
        functionResponse: {
          name: 'g',
          response: { output: 'one\n\ntwo' },
          parts: [{ fileData: { fileUri: 'https://example.com/chart.png', mimeType: 'image/png' } }],
        },
      },
    ]);
  });
});

describe('what the IR cannot hold is a 400 naming it', () => {
  it.each([
    ['a Google Search tool', { contents: [{ parts: [{ text: 'x' }] }], tools: [{ googleSearch: {} }] }, 'tools[0].googleSearch'],
    [
      'a code execution tool beside functions',
      { contents: [{ parts: [{ text: 'x' }] }], tools: [{ functionDeclarations: [{ name: 'f' }] }, { codeExecution: {} }] },
      'tools[1].codeExecution',
    ],
    [
      'code execution output in the history',
      { contents: [{ role: 'model', parts: [{ executableCode: { language: 'PYTHON', code: 'print(1)' } }] }] },
      'contents[0].parts[0].executableCode',
    ],
    ['a PDF', { contents: [{ parts: [{ inlineData: { mimeType: 'application/pdf', data: 'JVBERi0=' } }] }] }, 'contents[0].parts[0].inlineData.mimeType'],
    [
      'a file uploaded to the Files API',
      { contents: [{ parts: [{ fileData: { fileUri: 'https://generativelanguage.googleapis.com/v1beta/files/abc123', mimeType: 'image/png' } }] }] },
      'contents[0].parts[0].fileData.fileUri',
    ],
    ['a Cloud Storage file', { contents: [{ parts: [{ fileData: { fileUri: 'gs://bucket/cat.png' } }] }] }, 'contents[0].parts[0].fileData.fileUri'],
    ['an unknown role', { contents: [{ role: 'assistant', parts: [{ text: 'x' }] }] }, 'contents[0].role'],
    [
      'a system instruction with an image',
      { contents: [{ parts: [{ text: 'x' }] }], systemInstruction: { parts: [{ inlineData: { mimeType: 'image/png', data: 'AA' } }] } },
      'systemInstruction.parts[0]',
    ],
    [
      'a response schema without the JSON MIME type',
      { contents: [{ parts: [{ text: 'x' }] }], generationConfig: { responseJsonSchema: { type: 'object' } } },
      'generationConfig.responseMimeType',
    ],
  ])('%s', (_, body, param) => {
    expect(failure(() => decode(body))).toMatchObject({ status: 400, param });
  });

  it('the model comes from the path; without one, a body `model` (models/ prefix dropped) or a 400', () => {
    const body = { contents: [{ parts: [{ text: 'x' }] }] };
    expect(codec.decodeRequest({ ...body, model: 'models/gemini-2.5-pro' }, {}).model).toBe('gemini-2.5-pro');
    expect(codec.decodeRequest({ ...body, model: 'ignored' }, { pathModel: 'from-path', pathStream: true })).toMatchObject({
      model: 'from-path',
      stream: true,
    });
    expect(failure(() => codec.decodeRequest(body, {}))).toMatchObject({ status: 400, param: 'model' });
  });

  it('the legacy role "function" is a user turn', () => {
    const request = decode({
      contents: [
        { role: 'model', parts: [call('f')] },
        { role: 'function', parts: [result('f', { output: 'ok' })] },
      ],
    });
    expect(request.messages.map((m) => m.role)).toEqual(['assistant', 'tool']);
  });
});

describe('schema dialects and structured output', () => {
  it('the OpenAPI subset becomes JSON Schema: lower-case types, nullable as a null alternative, nested', () => {
    expect(
      openApiToJsonSchema({
        type: 'OBJECT',
        properties: {
          type: { type: 'STRING', enum: ['a', 'b'], nullable: true },
          tags: { type: 'ARRAY', items: { type: 'STRING', format: 'enum', enum: ['x'] } },
          either: { anyOf: [{ type: 'INTEGER' }, { type: 'BOOLEAN' }], nullable: true },
        },
        required: ['type'],
        propertyOrdering: ['type', 'tags'],
      }),
    ).toEqual({
      type: 'object',
      properties: {
        type: { type: ['string', 'null'], enum: ['a', 'b', null] },
        tags: { type: 'array', items: { type: 'string', format: 'enum', enum: ['x'] } },
        either: { anyOf: [{ type: 'integer' }, { type: 'boolean' }, { type: 'null' }] },
      },
      required: ['type'],
      propertyOrdering: ['type', 'tags'],
    });
  });

  it.each([
    [{ responseMimeType: 'application/json' }, { type: 'json_object' }],
    [
      { responseMimeType: 'application/json', responseSchema: { type: 'OBJECT', properties: { n: { type: 'NUMBER' } } } },
      { type: 'json_schema', schema: { type: 'object', properties: { n: { type: 'number' } } } },
    ],
    [
      { responseMimeType: 'application/json', responseJsonSchema: { type: 'object', additionalProperties: false } },
      { type: 'json_schema', schema: { type: 'object', additionalProperties: false } },
    ],
    [{ responseMimeType: 'text/plain' }, { type: 'text' }],
  ])('generationConfig %j is response format %j, and encodes back to it', (generationConfig, format) => {
    const request = decode({ contents: [{ parts: [{ text: 'x' }] }], generationConfig });
    expect(request.responseFormat).toEqual(format);
    const again = codec.decodeRequest(codec.encodeRequest(request, LANE).body, ORIGIN);
    expect(again.responseFormat).toEqual(format);
  });

  it('an enum MIME type has no IR form: rejected', () => {
    const request = decode({
      contents: [{ parts: [{ text: 'x' }] }],
      generationConfig: { responseMimeType: 'text/x.enum', responseSchema: { type: 'STRING', enum: ['a'] } },
    });
    expect(request.unmapped).toEqual([
      { path: 'generationConfig.responseMimeType', value: 'text/x.enum', disposition: 'reject', reason: 'response MIME type "text/x.enum"' },
    ]);
  });
});

describe("snake_case bodies (proto field names, as in Google's REST examples)", () => {
  it('decode exactly like their lowerCamelCase spelling, leaving data untouched', () => {
    const camel = {
      systemInstruction: { parts: [{ text: 'Be brief.' }] },
      contents: [
        { role: 'user', parts: [{ text: 'Look' }, { inlineData: { mimeType: 'image/png', data: 'AA' } }] },
        { role: 'model', parts: [{ functionCall: { name: 'f', args: { some_arg: 1 } }, thoughtSignature: 'c2ln' }] },
        { role: 'user', parts: [{ functionResponse: { name: 'f', response: { output_text: 'x' } } }] },
      ],
      tools: [{ functionDeclarations: [{ name: 'f', parametersJsonSchema: { type: 'object', properties: { some_arg: { type: 'integer' } } } }] }],
      toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['f'] } },
      generationConfig: { maxOutputTokens: 10, stopSequences: ['END'], responseMimeType: 'application/json' },
    };
    const snake = {
      system_instruction: { parts: [{ text: 'Be brief.' }] },
      contents: [
        { role: 'user', parts: [{ text: 'Look' }, { inline_data: { mime_type: 'image/png', data: 'AA' } }] },
        { role: 'model', parts: [{ function_call: { name: 'f', args: { some_arg: 1 } }, thought_signature: 'c2ln' }] },
        { role: 'user', parts: [{ function_response: { name: 'f', response: { output_text: 'x' } } }] },
      ],
      tools: [{ function_declarations: [{ name: 'f', parameters_json_schema: { type: 'object', properties: { some_arg: { type: 'integer' } } } }] }],
      tool_config: { function_calling_config: { mode: 'ANY', allowed_function_names: ['f'] } },
      generation_config: { max_output_tokens: 10, stop_sequences: ['END'], response_mime_type: 'application/json' },
    };
    expect(schemaErrors(SCHEMAS.request, snake)).toEqual([]);
    expect(codec.decodeRequest(snake, ORIGIN)).toEqual(decode(camel));
  });

  it('are checked by the request schema like their lowerCamelCase spelling: a bad member is a 400 naming it', () => {
    const contents = [{ role: 'user', parts: [{ text: 'Hi' }] }];
    const cases: [Record<string, unknown>, string][] = [
      [{ contents, tools: [{ function_declarations: { name: 'f' } }] }, 'tools[0].functionDeclarations'],
      [{ contents, tools: [{ function_declarations: [null] }] }, 'tools[0].functionDeclarations[0]'],
      [{ contents, tools: [{ function_declarations: [{ description: 'no name' }] }] }, 'tools[0].functionDeclarations[0].name'],
      [{ contents, generation_config: { max_output_tokens: 'ten' } }, 'generationConfig.maxOutputTokens'],
      [{ contents: [{ role: 'user', parts: [{ inline_data: { mime_type: 7, data: 'AA' } }] }] }, 'contents[0].parts[0].inlineData.mimeType'],
    ];
    for (const [body, param] of cases) {
      // Unchecked as sent (the schema names camelCase members), refused once renamed.
      expect(schemaErrors(SCHEMAS.request, body)).toEqual([]);
      expect(failure(() => codec.decodeRequest(structuredClone(body), ORIGIN))).toMatchObject({ status: 400, param });
    }
  });
});

describe('thought signatures', () => {
  const base = { model: 'm', stream: false, unmapped: [] } as const;

  it('are replayed when Gemini issued them, dropped with a warning otherwise, and never invented', () => {
    const request: ChatRequest = {
      ...base,
      source: 'openai',
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Go' }] },
        {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: 'thinking', signature: 'anthropic-sig', origin: 'anthropic' },
            { type: 'reasoning', text: 'gemini thought', origin: 'gemini', signature: 'g-thought' },
            { type: 'text', text: 'answer', signature: { origin: 'gemini', value: 'g-text' } },
            { type: 'tool_call', id: 'a', name: 'f', arguments: '{}', signature: { origin: 'gemini', value: 'g-call' } },
            { type: 'tool_call', id: 'b', name: 'f', arguments: '{}', signature: { origin: 'responses', value: 'foreign' } },
            { type: 'tool_call', id: 'c', name: 'f', arguments: '{}' },
          ],
        },
      ],
    };
    const { body, warnings } = codec.encodeRequest(request, LANE);
    expect((body.contents as { parts: unknown[] }[])[1]?.parts).toEqual([
      { text: 'gemini thought', thought: true, thoughtSignature: 'g-thought' },
      { text: 'answer', thoughtSignature: 'g-text' },
      { functionCall: { name: 'f', args: {} }, thoughtSignature: 'g-call' },
      { functionCall: { name: 'f', args: {} } },
      { functionCall: { name: 'f', args: {} } },
    ]);
    expect(warnings.map((w) => [w.path, w.kind])).toEqual([
      ['messages[1].content[0]', 'dropped'],
      ['messages[1].content[4].signature', 'dropped'],
    ]);
  });

  it('a signature-only part decodes as an empty signed text block, and thought parts as Gemini reasoning', () => {
    const request = decode({ contents: [{ role: 'model', parts: [{ text: 'hmm', thought: true, thoughtSignature: 't' }, { thoughtSignature: 's' }] }] });
    expect(request.messages[0]?.content).toEqual([
      { type: 'reasoning', text: 'hmm', origin: 'gemini', signature: 't' },
      { type: 'text', text: '', signature: { origin: 'gemini', value: 's' } },
    ]);
  });
});

describe('responses', () => {
  it('without a responseId, the IR id is derived from the body: the same body, the same id', () => {
    const body = { candidates: [{ content: { role: 'model', parts: [{ text: 'hi' }] }, finishReason: 'STOP', index: 0 }] };
    const first = codec.decodeResponse(structuredClone(body)).id;
    expect(first).toMatch(/^gemini_[0-9a-f]{24}$/);
    expect(codec.decodeResponse(structuredClone(body)).id).toBe(first);
    expect(codec.decodeResponse({ ...body, modelVersion: 'x' }).id).not.toBe(first);
  });

  it.each([
    ['MAX_TOKENS', false, 'length'],
    ['RECITATION', false, 'content_filter'],
    ['SPII', false, 'content_filter'],
    ['BLOCKLIST', false, 'content_filter'],
    ['MALFORMED_FUNCTION_CALL', false, 'other'],
    ['SOMETHING_NEW', false, 'other'],
    ['STOP', true, 'tool_calls'],
  ])('finishReason %s (calls: %s) is %s, keeping the raw value, and encodes back to it', (raw, withCall, reason) => {
    const parts = withCall ? [call('f')] : [{ text: 'x' }];
    const ir = codec.decodeResponse({ candidates: [{ content: { role: 'model', parts }, finishReason: raw, index: 0 }], responseId: 'r' });
    expect(ir.finish).toEqual({ reason, raw });
    const encoded = codec.encodeResponse(ir, { streamUsage: false }).body as { candidates: { finishReason: string }[] };
    expect(encoded.candidates[0]?.finishReason).toBe(raw === 'SOMETHING_NEW' ? 'OTHER' : raw);
  });

  it.each([
    [{ reason: 'stop', raw: 'end_turn' }, 'STOP'],
    [{ reason: 'stop_sequence', raw: 'stop_sequence', stopSequence: '###' }, 'STOP'],
    [{ reason: 'length', raw: 'max_tokens' }, 'MAX_TOKENS'],
    [{ reason: 'tool_calls', raw: 'tool_use' }, 'STOP'],
    [{ reason: 'refusal', raw: 'refusal' }, 'SAFETY'],
    [{ reason: 'content_filter', raw: 'content_filter' }, 'SAFETY'],
    [{ reason: 'pause', raw: 'pause_turn' }, 'OTHER'],
  ] as const)('foreign finish %j is written as %s', (finish, wire) => {
    const ir: ChatResponse = { id: 'x', model: 'm', content: [{ type: 'text', text: 'hi' }], finish, usage: null };
    expect((codec.encodeResponse(ir, { streamUsage: false }).body as { candidates: { finishReason: string }[] }).candidates[0]?.finishReason).toBe(wire);
  });

  it('usage: tool-use prompt tokens count as input, thoughts as output; cache writes stay inside the prompt', () => {
    const ir = codec.decodeResponse({
      candidates: [{ content: { role: 'model', parts: [{ text: 'x' }] }, finishReason: 'STOP', index: 0 }],
      usageMetadata: {
        promptTokenCount: 100,
        toolUsePromptTokenCount: 40,
        cachedContentTokenCount: 60,
        candidatesTokenCount: 5,
        thoughtsTokenCount: 7,
        totalTokenCount: 152,
      },
      responseId: 'r',
    });
    expect(ir.usage).toEqual({ inputTokens: 140, outputTokens: 12, cacheReadTokens: 60, cacheWriteTokens: 0, reasoningTokens: 7 });
    const anthropicLike: ChatResponse = {
      ...ir,
      usage: { inputTokens: 300, outputTokens: 20, cacheReadTokens: 100, cacheWriteTokens: 50, reasoningTokens: 0 },
    };
    expect(codec.encodeResponse(anthropicLike, { streamUsage: false }).body.usageMetadata).toEqual({
      promptTokenCount: 300,
      candidatesTokenCount: 20,
      totalTokenCount: 320,
      cachedContentTokenCount: 100,
    });
  });

  it('reasoning from another protocol is shown as a thought without its signature, with a warning', () => {
    const ir: ChatResponse = {
      id: 'x',
      model: 'm',
      finish: { reason: 'stop', raw: 'end_turn' },
      usage: null,
      content: [
        { type: 'reasoning', text: 'why', signature: 'sig', origin: 'anthropic' },
        { type: 'text', text: 'because' },
      ],
    };
    const { body, warnings } = codec.encodeResponse(ir, { streamUsage: false });
    expect((body as { candidates: { content: unknown }[] }).candidates[0]?.content).toEqual({
      role: 'model',
      parts: [{ text: 'why', thought: true }, { text: 'because' }],
    });
    expect(warnings.map((w) => w.path)).toEqual(['content[0].signature']);
  });
});

describe('errors', () => {
  it('encodeError writes google.rpc.Status with the IR status, the field at fault and the retry delay', () => {
    const envelope = codec.encodeError(gatewayError('rate_limit', 'slow down', { retryAfterSeconds: 12.5 }));
    expect(envelope.status).toBe(429);
    expect(envelope.headers['retry-after']).toBe('13');
    const body = JSON.parse(envelope.body) as unknown;
    expect(schemaErrors(SCHEMAS.error, body)).toEqual([]);
    expect(body).toEqual({
      error: {
        code: 429,
        message: 'slow down',
        status: 'RESOURCE_EXHAUSTED',
        details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '12.5s' }],
      },
    });
    const bad = JSON.parse(codec.encodeError(gatewayError('invalid_request', 'messages[0]: no', { param: 'messages[0]' })).body) as {
      error: { details: unknown[] };
    };
    expect(bad.error.details).toEqual([
      { '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [{ field: 'messages[0]', description: 'messages[0]: no' }] },
    ]);
  });

  it.each([
    ['overloaded', 529, 'UNAVAILABLE'],
    ['unavailable', 503, 'UNAVAILABLE'],
    ['billing', 402, 'FAILED_PRECONDITION'],
    ['authentication', 401, 'UNAUTHENTICATED'],
    ['permission', 403, 'PERMISSION_DENIED'],
    ['not_found', 404, 'NOT_FOUND'],
    ['timeout', 504, 'DEADLINE_EXCEEDED'],
    ['server', 500, 'INTERNAL'],
  ] as const)('kind %s keeps status %i and is called %s; decoding it gives the kind back', (kind, status, name) => {
    const envelope = codec.encodeError(gatewayError(kind, 'm'));
    expect(JSON.parse(envelope.body)).toEqual({ error: { code: status, message: 'm', status: name } });
    expect(codec.decodeError({ status, bodyText: envelope.body, headers: {}, retryAfterSeconds: undefined })).toEqual({
      kind,
      status,
      message: 'm',
      code: name,
    });
  });

  it('decodeError reads RetryInfo and the field at fault, unwraps a JSON-array body, and survives a non-JSON body', () => {
    const quota = JSON.stringify({
      error: {
        code: 429,
        message: 'Quota exceeded',
        status: 'RESOURCE_EXHAUSTED',
        details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '34.4s' }],
      },
    });
    expect(codec.decodeError({ status: 429, bodyText: quota, headers: {}, retryAfterSeconds: undefined })).toEqual({
      kind: 'rate_limit',
      status: 429,
      message: 'Quota exceeded',
      code: 'RESOURCE_EXHAUSTED',
      retryAfterSeconds: 34.4,
    });
    expect(codec.decodeError({ status: 429, bodyText: quota, headers: {}, retryAfterSeconds: 5 }).retryAfterSeconds).toBe(5);
    const field = JSON.stringify([
      {
        error: {
          code: 400,
          message: 'Invalid value',
          status: 'INVALID_ARGUMENT',
          details: [{ '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [{ field: 'contents[0].parts[0]' }] }],
        },
      },
    ]);
    expect(codec.decodeError({ status: 400, bodyText: field, headers: {}, retryAfterSeconds: undefined })).toEqual({
      kind: 'invalid_request',
      status: 400,
      message: 'Invalid value',
      code: 'INVALID_ARGUMENT',
      param: 'contents[0].parts[0]',
    });
    expect(codec.decodeError({ status: 502, bodyText: '<html>Bad Gateway</html>', headers: {}, retryAfterSeconds: undefined })).toMatchObject({
      kind: 'server',
      status: 502,
      message: 'upstream answered 502: <html>Bad Gateway</html>',
    });
  });

  it('a Gemini status name survives re-encoding (FAILED_PRECONDITION stays itself)', () => {
    const error = codec.decodeError({
      status: 400,
      bodyText: '{"error":{"code":400,"message":"User location is not supported","status":"FAILED_PRECONDITION"}}',
      headers: {},
      retryAfterSeconds: undefined,
    });
    expect(JSON.parse(codec.encodeError(error).body)).toEqual({
      error: { code: 400, message: 'User location is not supported', status: 'FAILED_PRECONDITION' },
    });
  });
});

describe('upstream paths', () => {
  it('name the model in the path; streaming asks for SSE', () => {
    expect(codec.upstreamPath('gemini-2.5-flash', false)).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
    expect(codec.upstreamPath('gemini-2.5-flash', true)).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
    expect(codec.upstreamPath('odd/name ?', false)).toBe('/v1beta/models/odd%2Fname%20%3F:generateContent');
  });
});

describe('stream encoder', () => {
  const text: StreamEvent[] = [
    { type: 'message_start', id: 'r1', model: 'm' },
    { type: 'block_start', index: 0, block: { type: 'text' } },
    { type: 'block_delta', index: 0, delta: { type: 'text', text: 'Hi' } },
    { type: 'block_stop', index: 0 },
    { type: 'finish', finish: { reason: 'length', raw: 'length' } },
    { type: 'usage', usage: { inputTokens: 3, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 } },
    { type: 'message_stop' },
  ];

  it('writes a JSON array progressively: `[` first, `,\\r\\n` between, `]` at the end', () => {
    const encoder = codec.createStreamEncoder({ streamUsage: true, jsonArrayStream: true });
    const pieces = text.map((e) => encoder.encode(e));
    expect(pieces[0]).toBe('');
    expect(pieces[2]).toBe('[{"candidates":[{"content":{"role":"model","parts":[{"text":"Hi"}]},"index":0}],"modelVersion":"m","responseId":"r1"}');
    expect(pieces[6]).toBe(
      '\n,\r\n{"candidates":[{"finishReason":"MAX_TOKENS","index":0}],"usageMetadata":{"promptTokenCount":3,"candidatesTokenCount":1,"totalTokenCount":4},"modelVersion":"m","responseId":"r1"}\n]',
    );
    expect(encoder.encode({ type: 'message_stop' })).toBe('');
  });

  it('an error ends the stream in both framings (the array gets its `]`), and nothing follows it', () => {
    const events: StreamEvent[] = [text[0]!, text[1]!, text[2]!, { type: 'error', error: gatewayError('overloaded', 'Overloaded') }, ...text.slice(3)];
    const array = encodeEvents(events, { streamUsage: true, jsonArrayStream: true });
    expect(JSON.parse(array)).toEqual([
      { candidates: [{ content: { role: 'model', parts: [{ text: 'Hi' }] }, index: 0 }], modelVersion: 'm', responseId: 'r1' },
      { error: { code: 529, message: 'Overloaded', status: 'UNAVAILABLE' } },
    ]);
    expect(encodeEvents(events)).toBe(
      'data: {"candidates":[{"content":{"role":"model","parts":[{"text":"Hi"}]},"index":0}],"modelVersion":"m","responseId":"r1"}\r\n\r\n' +
        'data: {"error":{"code":529,"message":"Overloaded","status":"UNAVAILABLE"}}\r\n\r\n',
    );
    expect(encodeEvents([{ type: 'error', error: gatewayError('server', 'x') }], { streamUsage: false, jsonArrayStream: true })).toBe(
      '[{"error":{"code":500,"message":"x","status":"INTERNAL"}}\n]',
    );
  });

  it('streamed tool arguments are gathered into one whole functionCall; arguments that are not an object end the stream with an error', () => {
    const events: StreamEvent[] = [
      { type: 'message_start', id: 'r', model: 'm' },
      { type: 'block_start', index: 0, block: { type: 'tool_call', id: 'call_1', name: 'f' } },
      { type: 'block_delta', index: 0, delta: { type: 'tool_arguments', partialJson: '{"a":' } },
      { type: 'block_delta', index: 0, delta: { type: 'tool_arguments', partialJson: ' 1}' } },
      { type: 'block_stop', index: 0 },
      { type: 'block_start', index: 1, block: { type: 'tool_call', id: 'call_2', name: 'g' } },
      { type: 'block_delta', index: 1, delta: { type: 'tool_arguments', partialJson: '[oops' } },
      { type: 'block_stop', index: 1 },
      { type: 'message_stop' },
    ];
    const decoded = decodeChunks([Buffer.from(encodeEvents(events))]);
    expect(decoded.filter((e) => e.type === 'block_delta')).toEqual([
      { type: 'block_delta', index: 0, delta: { type: 'tool_arguments', partialJson: '{"a":1}' } },
    ]);
    expect(decoded.at(-1)).toMatchObject({ type: 'error', error: { kind: 'server', status: 502 } });
  });

  it('drops foreign reasoning signatures and redacted reasoning with warnings; a stream with no finish ends STOP', () => {
    const encoder = codec.createStreamEncoder({ streamUsage: true });
    const out = (
      [
        { type: 'message_start', id: 'r', model: 'm' },
        { type: 'block_start', index: 0, block: { type: 'reasoning', origin: 'anthropic' } },
        { type: 'block_delta', index: 0, delta: { type: 'reasoning', text: 'hmm' } },
        { type: 'block_delta', index: 0, delta: { type: 'signature', signature: 'anthropic-sig' } },
        { type: 'block_stop', index: 0 },
        { type: 'block_start', index: 1, block: { type: 'redacted_reasoning', data: 'opaque', origin: 'anthropic' } },
        { type: 'block_stop', index: 1 },
        { type: 'message_stop' },
      ] satisfies StreamEvent[]
    )
      .map((e) => encoder.encode(e))
      .join('');
    expect(encoder.warnings.map((w) => w.path)).toEqual(['content[0].signature', 'content[1]']);
    expect(out).not.toContain('anthropic-sig');
    expect(out).toContain('"finishReason":"STOP"');
  });
});

describe('JSON array parser', () => {
  const text = '[{"a":"}{][\\"\\\\","b":[1,{"c":"é😀"}]}\n,\r\n{"d":{}}\n]';
  const expected = ['{"a":"}{][\\"\\\\","b":[1,{"c":"é😀"}]}', '{"d":{}}'];

  it('finds whole elements whatever brackets and escapes their strings hold, split anywhere', () => {
    const bytes = Buffer.from(text);
    for (const chunks of [[bytes], byteByByte(bytes), ...Array.from({ length: bytes.length + 1 }, (_, i) => splitAt(bytes, i))]) {
      const parser = new JsonArrayParser();
      const elements = chunks.flatMap((c) => parser.push(c).elements);
      elements.push(...parser.end().elements);
      expect(elements).toEqual(expected);
      expect(parser.closed).toBe(true);
    }
  });

  it('reports text that is not an array of objects', () => {
    expect(new JsonArrayParser().push(Buffer.from('{"a":1}')).malformed).toBe(true);
    expect(new JsonArrayParser().push(Buffer.from('[{"a":1}, "x"]'))).toEqual({ elements: ['{"a":1}'], malformed: true });
  });
});
