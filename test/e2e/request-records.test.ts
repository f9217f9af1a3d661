// The RequestRecord every data-plane chat request produces (exactly one, whatever the ending),
// checked field by field through a real gateway, the official SDKs and the scripted mock upstream.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { anthropicMessage, anthropicStreamEvents } from '../../server/demo/anthropic-replies.ts';
import { openaiChatCompletion, openaiChatStreamEvents } from '../../server/demo/openai-replies.ts';
import { overheadMs, type RequestRecord } from '../../server/observability/request-record.ts';
import { startHarness, type Harness } from '../support/gateway-harness.ts';
import { RecordCollector } from '../support/record-collector.ts';

let h: Harness;
let openai: OpenAI;
const records = new RecordCollector();

beforeAll(async () => {
  h = await startHarness({
    observers: [records],
    extraModelsYaml: '  priced: { provider: openai, model: priced-upstream, price: { input: 2, output: 8 } }\n',
    extraYaml: 'pools:\n  chat: { members: [ { model: gpt, weight: 10 }, { model: claude, weight: 1 } ] }\n',
  });
  openai = new OpenAI({ apiKey: 'client-key', baseURL: `${h.url}/v1`, maxRetries: 0 });
});
afterAll(() => h.close());
beforeEach(() => {
  h.upstream.reset();
  records.clear();
});

const openaiAnswer = (model: string) => ({
  json: openaiChatCompletion({ id: 'chatcmpl-1', model, text: 'hello', usage: { prompt_tokens: 11, completion_tokens: 5, cached_tokens: 4 } }),
});
const claudeAnswer = { json: anthropicMessage({ id: 'msg_1', model: 'claude-sonnet-4-5', text: 'from claude', usage: { input_tokens: 7, output_tokens: 3 } }) };

/** Timings are consistent: every part within the whole, in order. */
function expectSaneTimes(record: RequestRecord): void {
  expect(record.latencyMs).toBeGreaterThan(0);
  expect(record.upstreamMs).toBeGreaterThanOrEqual(0);
  expect(record.upstreamMs + record.clientWaitMs).toBeLessThanOrEqual(record.latencyMs);
  expect(overheadMs(record)).toBeGreaterThanOrEqual(0);
  if (record.ttfbMs !== undefined) expect(record.ttfbMs).toBeLessThanOrEqual(record.latencyMs);
  expect(Math.abs(record.startedAt - Date.now())).toBeLessThan(10_000);
  for (const attempt of record.attempts) expect(attempt.startMs + attempt.ms).toBeLessThanOrEqual(record.latencyMs + 1);
  expect(() => structuredClone(record)).not.toThrow(); // a worker thread can post it
}

describe('request records', () => {
  it("success: one record with the answer's lane, usage, cost, timings and the id the client saw", async () => {
    h.upstream.enqueue(openaiAnswer('priced-upstream'));
    const { data, response } = await openai.chat.completions.create({ model: 'priced', messages: [{ role: 'user', content: 'hi' }] }).withResponse();
    expect(data.choices[0]?.message.content).toBe('hello');
    const id = response.headers.get('x-request-id')!;
    const record = await records.forRequest(id);
    expect(record).toMatchObject({
      requestId: id,
      model: 'priced',
      lane: 'priced',
      provider: 'openai',
      upstreamModel: 'priced-upstream',
      ingress: 'openai',
      egress: 'openai',
      stream: false,
      status: 200,
      clientGone: false,
      finishReason: 'stop',
      usage: { inputTokens: 11, outputTokens: 5, cacheReadTokens: 4 },
      attempts: [{ lane: 'priced', provider: 'openai', outcome: 'success', status: 200, startMs: expect.any(Number), ms: expect.any(Number) }],
      warnings: [],
    });
    expect(record.pool).toBeUndefined();
    expect(record.errorKind).toBeUndefined();
    // 7 uncached input tokens at $2/M, 4 cached at the input price (no cache price), 5 output at $8/M, in 1e-8 USD.
    expect(record.costMicrocents).toBe(BigInt(11 * 200 + 5 * 800));
    expect(record.ttfbMs).toBeDefined();
    expectSaneTimes(record);
    expect(records.count(id)).toBe(1);
  });

  it("keeps the client's own x-request-id, and replaces one that is not a plain id", async () => {
    const ask = (requestId: string) =>
      fetch(`${h.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'x-request-id': requestId },
        body: JSON.stringify({ model: 'gpt', messages: [{ role: 'user', content: 'x' }] }),
      });
    const kept = await ask('trace-4bf92f3577b34da6a3ce929d0e0e4736');
    expect(kept.headers.get('x-request-id')).toBe('trace-4bf92f3577b34da6a3ce929d0e0e4736');
    expect((await records.forRequest('trace-4bf92f3577b34da6a3ce929d0e0e4736')).status).toBe(200);
    const replaced = await ask('x'.repeat(200));
    expect(replaced.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{24}$/);
    const spaced = await ask('has space');
    expect(spaced.headers.get('x-request-id')).toMatch(/^req_/);
  });

  it('failover: every attempt with its outcome and upstream status, the answering lane and pool', async () => {
    h.upstream.enqueue({ status: 500, json: { error: { message: 'boom', type: 'server_error', param: null, code: null } } }, claudeAnswer);
    const { data, response } = await openai.chat.completions.create({ model: 'chat', messages: [{ role: 'user', content: 'hi' }] }).withResponse();
    expect(data.choices[0]?.message.content).toBe('from claude');
    const record = await records.forRequest(response.headers.get('x-request-id')!);
    expect(record).toMatchObject({
      model: 'chat',
      pool: 'chat',
      lane: 'claude',
      provider: 'anthropic',
      egress: 'anthropic',
      status: 200,
      usage: { inputTokens: 7, outputTokens: 3 },
      finishReason: 'stop',
    });
    expect(record.attempts.map((a) => [a.lane, a.outcome, a.status])).toEqual([
      ['gpt', 'lane_fault', 500],
      ['claude', 'success', 200],
    ]);
    expect(record.attempts[1]!.startMs).toBeGreaterThanOrEqual(record.attempts[0]!.startMs + record.attempts[0]!.ms);
    expect(record.costMicrocents).toBeDefined(); // the catalog prices claude-sonnet-4-5
    expectSaneTimes(record);
  });

  it("all lanes failing: the relayed upstream error's status and kind, each attempt listed", async () => {
    h.upstream.enqueue(
      { status: 503, json: { error: { message: 'down', type: 'server_error', param: null, code: null } } },
      { status: 529, json: { type: 'error', error: { type: 'overloaded_error', message: 'busy' } } },
    );
    const res = await fetch(`${h.url}/v1/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'chat', messages: [{ role: 'user', content: 'x' }] }),
    });
    const record = await records.forRequest(res.headers.get('x-request-id')!);
    expect(record.status).toBe(res.status);
    expect(record.errorKind).toBe('overloaded');
    expect(record.attempts.map((a) => a.outcome)).toEqual(['lane_fault', 'lane_fault']);
    expect(record.usage).toBeNull();
    expect(record.costMicrocents).toBeUndefined();
  });

  it('refusals: unknown model (no model name from the client is recorded) and a bad body', async () => {
    const unknown = await fetch(`${h.url}/v1/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'client-invented-name', messages: [{ role: 'user', content: 'x' }] }),
    });
    expect(unknown.status).toBe(404);
    const record = await records.forRequest(unknown.headers.get('x-request-id')!);
    expect(record).toMatchObject({ status: 404, errorKind: 'not_found', errorCode: 'model_not_found', attempts: [], usage: null, ingress: 'openai' });
    expect(record.model).toBeUndefined();
    expect(JSON.stringify(record, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))).not.toContain('client-invented-name');
    expect(record.ttfbMs).toBeDefined();

    const bad = await fetch(`${h.url}/v1/messages`, { method: 'POST', body: '{not json' });
    const badRecord = await records.forRequest(bad.headers.get('x-request-id')!);
    expect(badRecord).toMatchObject({ status: 400, errorKind: 'invalid_request', ingress: 'anthropic', attempts: [] });
  });

  it("a translated stream: upstream time covers the upstream's pauses; warnings and usage are recorded", async () => {
    h.upstream.enqueue({
      events: anthropicStreamEvents(
        { id: 'msg_s', model: 'claude-sonnet-4-5', text: 'one two three', usage: { input_tokens: 9, output_tokens: 4 } },
        { textPieces: 3 },
      ),
      delayMs: 40,
    });
    const stream = await openai.chat.completions
      .create({ model: 'claude', stream: true, stream_options: { include_usage: true }, seed: 7, messages: [{ role: 'user', content: 'count' }] })
      .withResponse();
    let text = '';
    for await (const chunk of stream.data) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('one two three');
    const record = await records.forRequest(stream.response.headers.get('x-request-id')!);
    expect(record).toMatchObject({
      stream: true,
      status: 200,
      ingress: 'openai',
      egress: 'anthropic',
      lane: 'claude',
      usage: { inputTokens: 9, outputTokens: 4 },
      finishReason: 'stop',
    });
    expect(record.warnings.length).toBeGreaterThan(0);
    expect(record.warnings).toContainEqual({ kind: 'dropped', path: 'seed' });
    // Ten events, 40 ms apart: the gateway waited on the upstream for most of the request.
    expect(record.upstreamMs).toBeGreaterThan(300);
    expect(overheadMs(record)).toBeLessThan(record.upstreamMs);
    expect(record.ttfbMs!).toBeLessThan(record.latencyMs);
    expectSaneTimes(record);
  });

  it("a same-protocol stream: usage from the stream's start and end, finish reason, timings", async () => {
    const anthropic = new Anthropic({ apiKey: 'client-key', baseURL: h.url, maxRetries: 0 });
    h.upstream.enqueue({
      events: anthropicStreamEvents(
        { id: 'msg_p', model: 'claude-sonnet-4-5', text: 'relayed as is', usage: { input_tokens: 21, output_tokens: 6 } },
        { textPieces: 3 },
      ),
      delayMs: 5,
    });
    const { data, response } = await anthropic.messages
      .create({ model: 'claude', max_tokens: 50, stream: true, messages: [{ role: 'user', content: 'x' }] })
      .withResponse();
    for await (const _event of data) {
      /* drain */
    }
    const record = await records.forRequest(response.headers.get('x-request-id')!);
    expect(record).toMatchObject({
      stream: true,
      status: 200,
      ingress: 'anthropic',
      egress: 'anthropic',
      usage: { inputTokens: 21, outputTokens: 6 },
      finishReason: 'stop',
    });
    expectSaneTimes(record);
  });

  it('a client that leaves before any byte: status 499, clientGone, the attempt marked client_gone', async () => {
    h.upstream.enqueue({ fault: 'hang' });
    const controller = new AbortController();
    const pending = fetch(`${h.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'x-request-id': 'leaves-early' },
      body: JSON.stringify({ model: 'gpt', messages: [{ role: 'user', content: 'x' }] }),
      signal: controller.signal,
    });
    await waitFor(() => h.upstream.requests.length === 1);
    controller.abort();
    await expect(pending).rejects.toThrow();
    const record = await records.forRequest('leaves-early');
    expect(record).toMatchObject({ status: 499, clientGone: true, lane: 'gpt', attempts: [{ lane: 'gpt', outcome: 'client_gone' }] });
    expect(record.ttfbMs).toBeUndefined();
  });

  it('a client that leaves mid-stream: the committed status, clientGone', async () => {
    h.upstream.enqueue({
      events: openaiChatStreamEvents({ id: 'c', model: 'gpt-4.1-mini', text: 'a b c d e f g h' }, { includeUsage: false, textPieces: 8 }),
      delayMs: 50,
    });
    const controller = new AbortController();
    const res = await fetch(`${h.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'x-request-id': 'leaves-mid-stream' },
      body: JSON.stringify({ model: 'gpt', stream: true, messages: [{ role: 'user', content: 'x' }] }),
      signal: controller.signal,
    });
    const reader = res.body!.getReader();
    await reader.read();
    controller.abort();
    const record = await records.forRequest('leaves-mid-stream');
    expect(record).toMatchObject({ status: 200, clientGone: true, stream: true });
    expect(record.ttfbMs).toBeDefined();
    expect(record.attempts).toHaveLength(1);
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

describe('request records under governance', () => {
  let g: Harness;
  const governed = new RecordCollector();
  beforeAll(async () => {
    g = await startHarness({
      observers: [governed],
      extraModelsYaml: '  priced: { provider: openai, model: priced-upstream, price: { input: 1, output: 1 } }\n',
      extraYaml: 'db_path: ./gateway.db\ngovernance: on\n',
    });
  });
  afterAll(() => g.close());

  const createKey = async (body: Record<string, unknown>) => {
    const res = await fetch(`${g.adminUrl}/api/v1/admin/keys`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return (await res.json()) as { id: string; secret: string };
  };
  const call = async (secret: string | undefined, maxTokens = 10) => {
    const res = await fetch(`${g.url}/v1/chat/completions`, {
      method: 'POST',
      headers: secret === undefined ? {} : { authorization: `Bearer ${secret}` },
      body: JSON.stringify({ model: 'priced', max_completion_tokens: maxTokens, messages: [{ role: 'user', content: 'x' }] }),
    });
    await res.arrayBuffer();
    return { status: res.status, record: await governed.forRequest(res.headers.get('x-request-id')!) };
  };

  it('401, 429 and 402 refusals are recorded with their kind; the key id (never its secret) once known', async () => {
    const missing = await call(undefined);
    expect(missing.status).toBe(401);
    expect(missing.record).toMatchObject({ status: 401, errorKind: 'authentication', attempts: [] });
    expect(missing.record.keyId).toBeUndefined();
    expect(missing.record.model).toBeUndefined(); // refused from its headers: the body (naming the model) was never read

    const limited = await createKey({ rpm: 1 });
    g.upstream.enqueue({ json: openaiChatCompletion({ id: 'c', model: 'priced-upstream', text: 'ok', usage: { prompt_tokens: 100, completion_tokens: 50 } }) });
    const served = await call(limited.secret);
    expect(served.record).toMatchObject({ status: 200, keyId: limited.id, usage: { inputTokens: 100, outputTokens: 50 } });
    expect(served.record.costMicrocents).toBe(150n * 100n); // $1 per million tokens = 100 microcents a token
    const refused = await call(limited.secret);
    expect(refused.record).toMatchObject({ status: 429, errorKind: 'rate_limit', keyId: limited.id, attempts: [] });

    const poor = await createKey({ budget_cents: 1 });
    const broke = await call(poor.secret, 100_000);
    expect(broke.record).toMatchObject({ status: 402, errorKind: 'billing', keyId: poor.id, attempts: [] });
    for (const { record } of [missing, served, refused, broke]) {
      const text = JSON.stringify(record, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v));
      for (const secret of [limited.secret, poor.secret]) expect(text).not.toContain(secret);
    }
  });
});
