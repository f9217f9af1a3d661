// The official `openai` SDK (v7) reads what the Responses encoders write: the mock upstream
// answers POST /v1/responses with encodeResponse's body, or with the stream encoder's SSE for a
// fixed IR stream, and the SDK's own parsers (`responses.create`, `responses.stream(...)
// .finalResponse()`) must accept it and see the right text, function calls, reasoning and usage.
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ChatResponse, StreamEvent, Usage } from '../../../server/ir/index.ts';
import { SSE_HEADERS } from '../../../server/framing/sse-format.ts';
import { startMockUpstream, type MockUpstream, type ScriptedReply } from '../../support/mock-upstream.ts';
import { codec, encodeStream, fixtures, has, json } from './support.ts';

let upstream: MockUpstream;
let client: OpenAI;

beforeAll(async () => {
  upstream = await startMockUpstream();
  client = new OpenAI({ apiKey: 'k', baseURL: `${upstream.url}/v1`, maxRetries: 0 });
});
afterAll(() => upstream.close());
beforeEach(() => upstream.reset());
// Each test scripts one reply for POST /v1/responses; the SDK must have asked nothing else.
afterEach(() => expect(upstream.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /v1/responses']));

const sse = (events: readonly StreamEvent[]): ScriptedReply => ({ headers: { ...SSE_HEADERS }, raw: encodeStream(events) });
const usage: Usage = { inputTokens: 120, outputTokens: 80, cacheReadTokens: 64, cacheWriteTokens: 8, reasoningTokens: 30 };

const MIXED: StreamEvent[] = [
  { type: 'message_start', id: 'resp_sdk1', model: 'gpt-5.5' },
  { type: 'block_start', index: 0, block: { type: 'reasoning', origin: 'responses', id: 'rs_sdk1' } },
  { type: 'block_delta', index: 0, delta: { type: 'reasoning', text: 'Two cities, ' } },
  { type: 'block_delta', index: 0, delta: { type: 'reasoning', text: 'two calls.' } },
  { type: 'block_delta', index: 0, delta: { type: 'signature', signature: 'gAAAAABenc==' } },
  { type: 'block_stop', index: 0 },
  { type: 'block_start', index: 1, block: { type: 'text' } },
  { type: 'block_delta', index: 1, delta: { type: 'text', text: 'Checking ' } },
  { type: 'block_delta', index: 1, delta: { type: 'text', text: 'both. 👋' } },
  { type: 'block_stop', index: 1 },
  { type: 'block_start', index: 2, block: { type: 'tool_call', id: 'call_paris', name: 'get_weather' } },
  { type: 'block_delta', index: 2, delta: { type: 'tool_arguments', partialJson: '{"city":' } },
  { type: 'block_delta', index: 2, delta: { type: 'tool_arguments', partialJson: '"Paris"}' } },
  { type: 'block_stop', index: 2 },
  { type: 'block_start', index: 3, block: { type: 'tool_call', id: 'toolu_tokyo', name: 'get_weather' } },
  { type: 'block_delta', index: 3, delta: { type: 'tool_arguments', partialJson: '{"city":"Tokyo"}' } },
  { type: 'block_stop', index: 3 },
  { type: 'finish', finish: { reason: 'tool_calls', raw: 'tool_use' } },
  { type: 'usage', usage },
  { type: 'message_stop' },
];

describe('responses.stream(...).finalResponse() over the stream encoder', () => {
  it('assembles reasoning, text, function calls and usage, and sees every delta', async () => {
    upstream.enqueue(sse(MIXED));
    const stream = client.responses.stream({ model: 'gpt', input: 'Weather in Paris and Tokyo?' });
    const deltas: string[] = [];
    const argDeltas: string[] = [];
    stream.on('response.output_text.delta', (e) => deltas.push(e.delta));
    stream.on('response.function_call_arguments.delta', (e) => argDeltas.push(e.delta));
    const final = await stream.finalResponse();

    expect(upstream.requests.at(-1)?.json).toMatchObject({ model: 'gpt', stream: true });
    expect(final.id).toBe('resp_sdk1');
    expect(final.status).toBe('completed');
    expect(final.output_text).toBe('Checking both. 👋');
    expect(deltas).toEqual(['Checking ', 'both. 👋']);
    expect(argDeltas.join('')).toBe('{"city":"Paris"}{"city":"Tokyo"}');
    expect(final.output.map((item) => item.type)).toEqual(['reasoning', 'message', 'function_call', 'function_call']);
    const [reasoning, , paris, tokyo] = final.output;
    expect(reasoning).toMatchObject({
      type: 'reasoning',
      id: 'rs_sdk1',
      summary: [{ type: 'summary_text', text: 'Two cities, two calls.' }],
      encrypted_content: 'gAAAAABenc==',
    });
    expect(paris).toMatchObject({ type: 'function_call', call_id: 'call_paris', name: 'get_weather', arguments: '{"city":"Paris"}', status: 'completed' });
    expect(tokyo).toMatchObject({ type: 'function_call', call_id: 'toolu_tokyo', name: 'get_weather', arguments: '{"city":"Tokyo"}' });
    expect(final.usage).toEqual({
      input_tokens: 120,
      input_tokens_details: { cached_tokens: 64, cache_write_tokens: 8 },
      output_tokens: 80,
      output_tokens_details: { reasoning_tokens: 30 },
      total_tokens: 200,
    });
  });

  it('reports a length stop as an incomplete response', async () => {
    upstream.enqueue(
      sse([
        { type: 'message_start', id: 'resp_sdk2', model: 'gpt-5.5' },
        { type: 'block_start', index: 0, block: { type: 'text' } },
        { type: 'block_delta', index: 0, delta: { type: 'text', text: 'The French Revolution began' } },
        { type: 'block_stop', index: 0 },
        { type: 'finish', finish: { reason: 'length', raw: 'max_tokens' } },
        { type: 'usage', usage },
        { type: 'message_stop' },
      ]),
    );
    const final = await client.responses.stream({ model: 'gpt', input: 'History, please.' }).finalResponse();
    expect(final.status).toBe('incomplete');
    expect(final.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    expect(final.output_text).toBe('The French Revolution began');
  });

  it('turns an IR error after content into an APIError carrying the message and code', async () => {
    upstream.enqueue(
      sse([...MIXED.slice(0, 8), { type: 'error', error: { kind: 'overloaded', status: 529, message: 'Overloaded', code: 'overloaded_error' } }]),
    );
    const failure = await client.responses
      .stream({ model: 'gpt', input: 'x' })
      .finalResponse()
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(failure).toBeInstanceOf(OpenAI.APIError);
    expect(failure).toMatchObject({ message: expect.stringContaining('Overloaded') as unknown, code: 'overloaded_error' });
  });

  it('reads the raw event iterator too (responses.create with stream: true)', async () => {
    upstream.enqueue(sse(MIXED));
    const events = await client.responses.create({ model: 'gpt', input: 'x', stream: true });
    const types: string[] = [];
    for await (const event of events) types.push(event.type);
    expect(types[0]).toBe('response.created');
    expect(types.at(-1)).toBe('response.completed');
    expect(types).toContain('response.reasoning_summary_text.delta');
  });
});

describe('every golden IR stream, whatever protocol it came from, is accepted by the SDK', () => {
  const streams = ['openai', 'anthropic', 'responses'].flatMap((p) => fixtures(p)).filter((f) => has(f, 'stream.ir.json'));
  for (const f of streams) {
    const events = json<StreamEvent[]>(f, 'stream.ir.json');
    const text = events.flatMap((e) => (e.type === 'block_delta' && e.delta.type === 'text' ? [e.delta.text] : [])).join('');
    const failed = events.some((e) => e.type === 'error');
    it(`${f.protocol}/${f.name}: ${failed ? 'rejects with an APIError' : 'gives the streamed text and usage'}`, async () => {
      upstream.enqueue(sse(events));
      const result = client.responses.stream({ model: 'gpt', input: 'x' }).finalResponse();
      if (failed) {
        await expect(result).rejects.toBeInstanceOf(OpenAI.APIError);
        return;
      }
      const final = await result;
      expect(final.output_text).toBe(text);
      const calls = final.output.filter((item) => item.type === 'function_call');
      expect(calls.length).toBe(events.filter((e) => e.type === 'block_start' && e.block.type === 'tool_call').length);
      const irUsage = events.findLast((e) => e.type === 'usage');
      if (irUsage?.type === 'usage') expect(final.usage?.input_tokens).toBe(irUsage.usage.inputTokens);
    });
  }
});

describe('responses.create over encodeResponse', () => {
  const response: ChatResponse = {
    id: 'resp_sdk3',
    model: 'gpt-5.5',
    created: 1763820000,
    content: [
      { type: 'reasoning', text: 'Short.', redacted: 'gAAAAB==', origin: 'responses', id: 'rs_sdk3' },
      { type: 'text', text: 'Here you go: ' },
      { type: 'text', text: 'two calls.' },
      { type: 'tool_call', id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
    ],
    finish: { reason: 'tool_calls', raw: 'tool_calls' },
    usage,
  };

  it('gives output_text, the function call and the usage', async () => {
    upstream.enqueue({ json: codec.encodeResponse(response, { streamUsage: false }).body });
    const final = await client.responses.create({ model: 'gpt', input: 'x' });
    expect(final.output_text).toBe('Here you go: two calls.');
    expect(final.status).toBe('completed');
    expect(final.output.find((item) => item.type === 'function_call')).toMatchObject({ call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' });
    expect(final.output.find((item) => item.type === 'reasoning')).toMatchObject({ id: 'rs_sdk3', encrypted_content: 'gAAAAB==' });
    expect(final.usage?.total_tokens).toBe(200);
  });

  it('gives a refusal part when the model refused', async () => {
    const refusal: ChatResponse = { ...response, content: [{ type: 'text', text: "I can't help with that." }], finish: { reason: 'refusal', raw: 'refusal' } };
    upstream.enqueue({ json: codec.encodeResponse(refusal, { streamUsage: false }).body });
    const final = await client.responses.create({ model: 'gpt', input: 'x' });
    expect(final.output).toMatchObject([{ type: 'message', content: [{ type: 'refusal', refusal: "I can't help with that." }] }]);
    expect(final.output_text).toBe('');
  });

  it('raises the SDK error class for the HTTP error envelope, keeping status, code and Retry-After', async () => {
    const envelope = codec.encodeError({ kind: 'rate_limit', status: 429, message: 'Slow down', code: 'rate_limit_exceeded', retryAfterSeconds: 7 });
    upstream.enqueue({ status: envelope.status, headers: { ...envelope.headers }, raw: envelope.body });
    const failure = await client.responses.create({ model: 'gpt', input: 'x' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(failure).toBeInstanceOf(OpenAI.RateLimitError);
    expect(failure).toMatchObject({ status: 429, code: 'rate_limit_exceeded', message: expect.stringContaining('Slow down') as unknown });
    expect((failure as InstanceType<typeof OpenAI.APIError>).headers?.get('retry-after')).toBe('7');
  });
});
