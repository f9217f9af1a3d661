// Routing and resilience end to end: a pool of an OpenAI lane and an Anthropic lane in front of
// the mock upstream, with faults chosen per request. Each scenario asserts what the client got
// and which lanes were tried (the mock records every upstream request).
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { anthropicMessage, anthropicStreamEvents } from '../../server/demo/anthropic-replies.ts';
import { openaiChatCompletion, openaiChatStreamEvents } from '../../server/demo/openai-replies.ts';
import { startHarness, type Harness } from '../support/gateway-harness.ts';
import type { ScriptedReply } from '../support/mock-upstream.ts';
import { FakeClock } from '../routing/fake-clock.ts';

const TIMEOUT_MS = 400;
const POOLS = [
  'p429',
  'p429bare',
  'p500',
  'p503',
  'preset',
  'phang',
  'pslow',
  'pcutbefore',
  'pcutafter',
  'pstall',
  'pmalformed',
  'pnoterm',
  'pctx',
  'pfilter',
  'p401',
  'pflap',
];

let h: Harness;
let client: OpenAI;
const clock = new FakeClock();

beforeAll(async () => {
  h = await startHarness({
    clock,
    extraModelsYaml: `  fast: { provider: openai, model: fast-upstream, timeouts: { first_byte_ms: ${TIMEOUT_MS}, idle_ms: ${TIMEOUT_MS} } }\n  solo: { provider: openai, model: solo-upstream }\n`,
    breakerYaml: 'breaker: { consecutive_failures: 3, open_ms: 10000, jitter: 0, rate_limit_cooldown_ms: 15000, config_fault_cooldown_ms: 900000 }\n',
    extraYaml: `pools:\n${POOLS.map((p) => `  ${p}: { members: [ { model: fast, weight: 10 }, { model: claude, weight: 1 } ] }\n`).join('')}`,
  });
  client = new OpenAI({ apiKey: 'client-key', baseURL: `${h.url}/v1`, maxRetries: 0 });
});
afterAll(() => h.close());
beforeEach(() => h.upstream.reset());

const ask = (model: string, extra: Record<string, unknown> = {}) =>
  fetch(`${h.url}/v1/chat/completions`, { method: 'POST', body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }], ...extra }) });
const tried = () => h.upstream.requests.map((r) => (r.json as { model: string }).model);
const claudeAnswer = (text = 'from claude') => ({
  json: anthropicMessage({ id: 'msg_1', model: 'claude-sonnet-4-5', text, usage: { input_tokens: 7, output_tokens: 3 } }),
});
const openaiAnswer = (text = 'from fast') => ({ json: openaiChatCompletion({ id: 'chatcmpl-1', model: 'fast-upstream', text }) });
const claudeStream = (text: string) =>
  anthropicStreamEvents({ id: 'msg_s', model: 'claude-sonnet-4-5', text, usage: { input_tokens: 1, output_tokens: 1 } }, { textPieces: 1 });
const stream = (text: string) => openaiChatStreamEvents({ id: 'chatcmpl-s', model: 'fast-upstream', text }, { includeUsage: false, textPieces: 3 });

describe('failover before the first byte', () => {
  it('429 with Retry-After: fails over, then the cooling lane is skipped until the deadline', async () => {
    h.upstream.enqueue(
      { status: 429, headers: { 'retry-after': '30' }, json: { error: { message: 'slow down', type: 'requests', param: null, code: 'rate_limit_exceeded' } } },
      claudeAnswer(),
    );
    const res = await ask('p429');
    expect(res.status).toBe(200);
    expect(res.headers.get('x-gateway-lane')).toBe('claude');
    const body = (await res.json()) as OpenAI.ChatCompletion;
    expect(body.choices[0]?.message.content).toBe('from claude');
    expect(body.usage).toMatchObject({ prompt_tokens: 7, completion_tokens: 3 }); // the answering lane's usage
    expect(tried()).toEqual(['fast-upstream', 'claude-sonnet-4-5']);

    h.upstream.reset();
    h.upstream.enqueue(claudeAnswer());
    await ask('p429');
    expect(tried()).toEqual(['claude-sonnet-4-5']);
    clock.advance(30_001);
    h.upstream.reset();
    h.upstream.enqueue(openaiAnswer());
    expect((await ask('p429')).headers.get('x-gateway-lane')).toBe('fast');
  });

  it('429 without any reset hint still fails over (a default cooldown applies)', async () => {
    h.upstream.enqueue({ status: 429, json: { error: { message: 'busy', type: 'requests', param: null, code: 'rate_limit_exceeded' } } }, claudeAnswer());
    expect((await ask('p429bare')).status).toBe(200);
    expect(tried()).toEqual(['fast-upstream', 'claude-sonnet-4-5']);
  });

  it.each([
    ['p500', { status: 500, json: { error: { message: 'boom', type: 'server_error', param: null, code: null } } }],
    ['preset', { fault: 'reset' as const }],
    ['pmalformed', { events: ['data: {"id":"c","choices":[{"index":0,"delta":{"role":"assistant"}}]}\n\n', 'data: {not json\n\n'] }],
    ['pcutbefore', { events: stream('never seen'), cutAfter: 1 }],
  ])('%s: a lane fault before any content fails over to the next lane', async (pool, fault) => {
    h.upstream.enqueue(fault, {
      events: [
        'event: message_start\ndata: {"type":"message_start","message":{"id":"m","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"usage":{"input_tokens":1,"output_tokens":1}}}\n\n',
        'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n',
        'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"rescued"}}\n\n',
        'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n',
        'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":1}}\n\n',
        'event: message_stop\ndata: {"type":"message_stop"}\n\n',
      ],
    });
    const chunks: OpenAI.ChatCompletionChunk[] = [];
    for await (const chunk of await client.chat.completions.create({ model: pool, stream: true, messages: [{ role: 'user', content: 'hi' }] }))
      chunks.push(chunk);
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe('rescued');
    expect(chunks.filter((c) => c.choices[0]?.delta.role === 'assistant')).toHaveLength(1); // one opening, from the lane that answered
    expect(tried()).toEqual(['fast-upstream', 'claude-sonnet-4-5']);
  });

  it('an upstream that hangs is abandoned at the first-byte timeout and the next lane answers', async () => {
    h.upstream.enqueue({ fault: 'hang' }, claudeAnswer('after hang'));
    const started = Date.now();
    const res = await ask('phang');
    expect(((await res.json()) as OpenAI.ChatCompletion).choices[0]?.message.content).toBe('after hang');
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS + 1500);
    expect(tried()).toEqual(['fast-upstream', 'claude-sonnet-4-5']);
  });

  it('a first token slower than the first-byte timeout fails over, though headers came at once', async () => {
    const events = stream('too late');
    h.upstream.enqueue({ events, pauseAfter: 1, pauseMs: TIMEOUT_MS * 3 }, { events: claudeStream('from claude') });
    const res = await ask('pslow', { stream: true });
    const text = await res.text();
    expect(text).toContain('from claude');
    expect(text).not.toContain('too late');
    expect(tried()).toEqual(['fast-upstream', 'claude-sonnet-4-5']);
  });

  it('persistent 503 on every lane: the client gets the last failure, in its shape', async () => {
    h.upstream.enqueue(
      { status: 503, json: { error: { message: 'down', type: 'server_error', param: null, code: null } } },
      { status: 503, json: { type: 'error', error: { type: 'api_error', message: 'also down' } } },
    );
    const res = await ask('p503');
    expect(res.status).toBe(503);
    expect(((await res.json()) as { error: { message: string } }).error.message).toBe('also down');
    expect(tried()).toHaveLength(2);
  });

  it('upstream 401 fails over and puts the lane in a long cooldown', async () => {
    h.upstream.enqueue(
      { status: 401, json: { error: { message: 'bad key', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } } },
      claudeAnswer(),
      claudeAnswer(),
    );
    expect((await ask('p401')).status).toBe(200);
    clock.advance(60_000);
    await ask('p401');
    expect(tried()).toEqual(['fast-upstream', 'claude-sonnet-4-5', 'claude-sonnet-4-5']);
  });
});

describe('client disconnect', () => {
  it('aborts the upstream request at once and records nothing against the lane', async () => {
    h.upstream.enqueue({ fault: 'hang' });
    const leave = new AbortController();
    const request = fetch(`${h.url}/v1/chat/completions`, {
      method: 'POST',
      signal: leave.signal,
      body: JSON.stringify({ model: 'solo', messages: [{ role: 'user', content: 'hi' }] }),
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    leave.abort();
    await expect(request).rejects.toThrow();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(h.upstream.requests[0]?.abandoned).toBe(true);
    const lane = h.gateway.routing.snapshot().find((p) => p.pool === 'solo')?.lanes[0];
    expect(lane?.counters).toMatchObject({ laneFaults: 0, successes: 0 });
    expect(lane?.inFlight).toBe(0);
  });
});

describe('no failover', () => {
  it("a context-length error is the client's: relayed as sent, not retried, no breaker penalty", async () => {
    const body = '{"error":{"message":"maximum context length exceeded","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}';
    h.upstream.enqueue(
      { status: 400, headers: { 'content-type': 'application/json' }, raw: body },
      { status: 400, raw: body },
      { status: 400, raw: body },
      openaiAnswer(),
    );
    for (let i = 0; i < 3; i++) {
      const res = await ask('pctx');
      expect(res.status).toBe(400);
      expect(await res.text()).toBe(body);
    }
    expect((await ask('pctx')).headers.get('x-gateway-lane')).toBe('fast'); // 3 client faults did not open the breaker
    expect(tried()).toEqual(['fast-upstream', 'fast-upstream', 'fast-upstream', 'fast-upstream']);
  });

  it('a content-filter refusal is an answer: relayed, no failover', async () => {
    h.upstream.enqueue({ json: openaiChatCompletion({ id: 'chatcmpl-f', model: 'fast-upstream', text: '', finishReason: 'content_filter' }) });
    const res = await ask('pfilter');
    expect(((await res.json()) as OpenAI.ChatCompletion).choices[0]?.finish_reason).toBe('content_filter');
    expect(tried()).toEqual(['fast-upstream']);
  });
});

describe('after commit nothing is retried; failures end the stream with an error event', () => {
  it.each<[string, ScriptedReply]>([
    ['pcutafter', { events: stream('abcdef'), cutAfter: 3 }],
    ['pstall', { events: stream('abcdef'), pauseAfter: 3, pauseMs: TIMEOUT_MS * 3 }],
    ['pnoterm', { events: stream('abcdef').filter((e) => !e.includes('[DONE]')) }],
  ])('%s: content, then an error the SDK raises, never a clean finish', async (pool, fault) => {
    h.upstream.enqueue(fault);
    const seen: string[] = [];
    const run = async () => {
      for await (const chunk of await client.chat.completions.create({ model: pool, stream: true, messages: [{ role: 'user', content: 'hi' }] })) {
        seen.push(chunk.choices[0]?.delta.content ?? '');
        if (chunk.choices[0]?.finish_reason) seen.push('FINISH');
      }
    };
    await expect(run()).rejects.toThrow();
    expect(seen.join('')).not.toBe('');
    expect(tried()).toEqual(['fast-upstream']);
  });
});

describe('breaker', () => {
  it('a flapping primary: opens after 3 faults, traffic moves, one half-open probe closes it', async () => {
    const fail = { status: 500, json: { error: { message: 'flap', type: 'server_error', param: null, code: null } } };
    for (let i = 0; i < 3; i++) {
      h.upstream.enqueue(fail, claudeAnswer());
      expect((await ask('pflap')).headers.get('x-gateway-lane')).toBe('claude');
    }
    h.upstream.reset();
    h.upstream.enqueue(claudeAnswer());
    await ask('pflap');
    expect(tried()).toEqual(['claude-sonnet-4-5']); // open: the primary is not even tried

    clock.advance(10_001);
    h.upstream.reset();
    h.upstream.enqueue(openaiAnswer('probe ok'), openaiAnswer('closed again'));
    expect((await ask('pflap')).headers.get('x-gateway-lane')).toBe('fast'); // the probe
    expect((await ask('pflap')).headers.get('x-gateway-lane')).toBe('fast');
    expect(tried()).toEqual(['fast-upstream', 'fast-upstream']);
  });

  it("every member unavailable: 503 with Retry-After in the client's protocol, no upstream call", async () => {
    const fail = { status: 500, json: { error: { message: 'x', type: 'server_error', param: null, code: null } } };
    h.upstream.enqueue(fail, fail, fail);
    for (let i = 0; i < 3; i++) expect((await ask('solo')).status).toBe(500);
    h.upstream.reset();
    const res = await ask('solo');
    expect(res.status).toBe(503);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(9);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('no_lane_available');
    const anthropic = await fetch(`${h.url}/v1/messages`, {
      method: 'POST',
      body: JSON.stringify({ model: 'solo', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] }),
    });
    expect(anthropic.status).toBe(503);
    expect(((await anthropic.json()) as { type: string }).type).toBe('error');
    expect(tried()).toEqual([]);
  });
});
