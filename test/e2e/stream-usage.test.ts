// An OpenAI stream reports usage only when asked. The gateway needs it (spend, token and cost
// metrics), so it asks the upstream, and gives the client exactly the stream it asked for: without
// `include_usage`, byte for byte the stream an upstream sends without it. The request record is
// settled on the real usage, not on an estimate. Clients: the OpenAI SDK and raw HTTP.
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openaiChatStreamEvents } from '../../server/demo/openai-replies.ts';
import { costMicrocents } from '../../server/governance/cost.ts';
import { startHarness, type Harness } from '../support/gateway-harness.ts';
import { RecordCollector } from '../support/record-collector.ts';

let h: Harness;
let client: OpenAI;
const records = new RecordCollector();
const PRICE = { input: 2, output: 8 };

beforeAll(async () => {
  h = await startHarness({
    observers: [records],
    extraModelsYaml: `  priced: { provider: openai, model: priced-upstream, price: { input: ${PRICE.input}, output: ${PRICE.output} } }\n`,
  });
  client = new OpenAI({ apiKey: 'client-key', baseURL: `${h.url}/v1`, maxRetries: 0 });
});
afterAll(() => h.close());
beforeEach(() => {
  h.upstream.reset();
  records.clear();
});

const spec = {
  id: 'chatcmpl-u',
  model: 'priced-upstream',
  text: 'counted for real',
  created: 1_700_000_000,
  usage: { prompt_tokens: 1100, completion_tokens: 500 },
};
/** What an OpenAI upstream sends for a request with (or without) `include_usage`. */
const upstreamStream = (includeUsage: boolean) => openaiChatStreamEvents(spec, { includeUsage, textPieces: 3 });
const priceOf = () => h.gateway.routing.router('priced')!.members[0]!.lane.price!;

const rawStream = async (body: Record<string, unknown>) => {
  const res = await fetch(`${h.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'priced', stream: true, messages: [{ role: 'user', content: 'hi' }], ...body }),
  });
  return { text: await res.text(), requestId: res.headers.get('x-request-id')! };
};

describe('the client did not ask for usage', () => {
  it('raw: the upstream is asked; the client gets the stream without usage, byte for byte; settled on the real usage', async () => {
    h.upstream.enqueue({ events: upstreamStream(true) });
    const { text, requestId } = await rawStream({});
    expect((h.lastRequest().json as { stream_options?: unknown }).stream_options).toEqual({ include_usage: true });
    expect(text).toBe(upstreamStream(false).join(''));
    const record = await records.forRequest(requestId);
    expect(record.usage).toMatchObject({ inputTokens: 1100, outputTokens: 500 });
    expect(record.costMicrocents).toBe(costMicrocents(record.usage!, priceOf()));
  });

  it('raw, with other stream_options: they reach the upstream as sent, beside include_usage', async () => {
    h.upstream.enqueue({ events: upstreamStream(true) });
    const { text } = await rawStream({ stream_options: { include_obfuscation: false } });
    expect((h.lastRequest().json as { stream_options?: unknown }).stream_options).toEqual({ include_obfuscation: false, include_usage: true });
    expect(text).toBe(upstreamStream(false).join(''));
  });

  it('OpenAI SDK: no usage chunk, no usage member; the record has the real usage', async () => {
    h.upstream.enqueue({ events: upstreamStream(true) });
    const { data: stream, response } = await client.chat.completions
      .create({ model: 'priced', stream: true, messages: [{ role: 'user', content: 'hi' }] })
      .withResponse();
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('counted for real');
    expect(chunks.every((c) => c.choices.length === 1 && !('usage' in c))).toBe(true);
    const record = await records.forRequest(response.headers.get('x-request-id')!);
    expect(record.usage).toMatchObject({ inputTokens: 1100, outputTokens: 500 });
  });
});

describe('the client did not ask for usage, upstream framing', () => {
  it('raw: a CR LF framed stream is stripped too, and arrives in the upstream framing', async () => {
    const crlf = (events: string[]) => events.map((e) => e.replaceAll('\n\n', '\r\n\r\n'));
    h.upstream.enqueue({ events: crlf(upstreamStream(true)) });
    const { text } = await rawStream({});
    expect(text).toBe(crlf(upstreamStream(false)).join(''));
  });

  it('raw: a stream whose last line has no line end (data: [DONE] at the close) still delivers it', async () => {
    const unterminated = (events: string[]) => [...events.slice(0, -1), events.at(-1)!.trimEnd()];
    expect(unterminated(upstreamStream(true)).at(-1)).toBe('data: [DONE]');
    h.upstream.enqueue({ events: unterminated(upstreamStream(true)) });
    const { text } = await rawStream({});
    expect(text).toBe(unterminated(upstreamStream(false)).join(''));
  });
});

describe('the client asked for usage', () => {
  it('raw: the request goes as sent and the stream comes back as sent', async () => {
    h.upstream.enqueue({ events: upstreamStream(true) });
    const body = { stream_options: { include_usage: true } };
    const { text } = await rawStream(body);
    expect(h.lastRequest().rawBody.toString()).toBe(
      JSON.stringify({ model: 'priced-upstream', stream: true, messages: [{ role: 'user', content: 'hi' }], ...body }),
    );
    expect(text).toBe(upstreamStream(true).join(''));
  });

  it('OpenAI SDK: the usage chunk arrives', async () => {
    h.upstream.enqueue({ events: upstreamStream(true) });
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    for await (const chunk of await client.chat.completions.create({
      model: 'priced',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'hi' }],
    }))
      chunks.push(chunk);
    expect(chunks.at(-1)?.usage).toMatchObject({ prompt_tokens: 1100, completion_tokens: 500 });
  });
});

describe('under governance', () => {
  let g: Harness;
  beforeAll(async () => {
    g = await startHarness({
      extraModelsYaml: `  priced: { provider: openai, model: priced-upstream, price: { input: ${PRICE.input}, output: ${PRICE.output} } }\n`,
      extraYaml: 'db_path: ./gateway.db\ngovernance: on\n',
    });
  });
  afterAll(() => g.close());

  it('a stream whose client did not ask for usage is settled on the real usage, not an estimate', async () => {
    const created = await fetch(`${g.adminUrl}/api/v1/admin/keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'usage', budget_cents: 1000 }),
    });
    const key = (await created.json()) as { id: string; secret: string };
    g.upstream.enqueue({ events: upstreamStream(true) });
    const sdk = new OpenAI({ apiKey: key.secret, baseURL: `${g.url}/v1`, maxRetries: 0 });
    let text = '';
    for await (const chunk of await sdk.chat.completions.create({ model: 'priced', stream: true, messages: [{ role: 'user', content: 'hi' }] }))
      text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('counted for real');
    expect((g.lastRequest().json as { stream_options?: unknown }).stream_options).toEqual({ include_usage: true });
    const lane = g.gateway.routing.router('priced')!.members[0]!.lane;
    const real = costMicrocents({ inputTokens: 1100, outputTokens: 500, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 }, lane.price!);
    expect(g.gateway.governance!.listKeys().find((k) => k.id === key.id)!.spentMicrocents).toBe(real);
  });
});
