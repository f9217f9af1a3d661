// Webhooks end to end: real requests through a real gateway (OpenAI and Anthropic SDKs as
// clients) produce events at a real receiver, retried when it fails; the events carry no prompt,
// completion, client key or upstream credential; GET /api/v1/admin/hooks lists every hook with a
// masked target and its counters; stopping the gateway flushes what is queued.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openaiChatCompletion } from '../../server/demo/openai-replies.ts';
import { startHarness, UPSTREAM_ANTHROPIC_KEY, UPSTREAM_OPENAI_KEY, type Harness } from '../support/gateway-harness.ts';
import { answerJson, startHookReceiver, type HookReceiver } from '../support/hook-receiver.ts';

const PROMPT = 'tell me the launch codes';
const CLIENT_KEY = 'sk-client-key-s3cret';
const AUDIT_TOKEN = 'audit-bearer-s3cret';

interface Event {
  id: string;
  type: string;
  version: number;
  request: Record<string, unknown> & { id: string; status: number; usage: Record<string, number> | null; attempts: unknown[] };
}

let receiver: HookReceiver;
let h: Harness;
beforeAll(async () => {
  receiver = await startHookReceiver((_, res) => answerJson(res, 200, {}));
  h = await startHarness({
    env: { AUDIT_TOKEN: `Bearer ${AUDIT_TOKEN}`, FAILURES_URL: `${receiver.url}/failures/SECRETPATH` },
    extraModelsYaml: '  priced: { provider: openai, model: priced-upstream, price: { input: 1, output: 2 } }\n',
    extraYaml: `pools:
  chat: { members: [ { model: priced, weight: 5 }, { model: claude } ] }
hooks:
  - { name: policy, kind: gate, url: "${receiver.url}/gate?token=abc", on_error: allow }
  - name: audit
    kind: webhook
    url: ${receiver.url}/events
    headers: { authorization: { env: AUDIT_TOKEN } }
    max_retries: 3
    backoff: { initial_ms: 5, max_ms: 20 }
  - { name: failures, kind: webhook, url: { env: FAILURES_URL }, events: [request.failed] }
`,
  });
});
afterAll(async () => {
  await h.close();
  await receiver.close();
});
beforeEach(() => {
  receiver.reset();
  receiver.respond = (_, res) => answerJson(res, 200, { allow: true });
  h.upstream.reset();
});

const eventsAt = (path: string) => receiver.calls.filter((c) => c.path === path).map((c) => c.json as Event);
async function eventsFor(path: string, requestId: string | null, count = 1): Promise<Event[]> {
  const deadline = Date.now() + 3000;
  for (;;) {
    const found = eventsAt(path).filter((e) => e.request.id === requestId);
    if (found.length >= count) return found;
    if (Date.now() > deadline) throw new Error(`no ${count} event(s) for ${requestId} at ${path}; got ${JSON.stringify(receiver.calls.map((c) => c.path))}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('events from real requests', () => {
  it('OpenAI SDK through a pool, with a failover: one request.completed event with usage, cost and both attempts', async () => {
    h.upstream.enqueue(
      { status: 500, json: { error: { message: 'boom', type: 'server_error', param: null, code: null } } },
      {
        json: {
          id: 'msg_1',
          type: 'message',
          role: 'assistant',
          model: 'claude-sonnet-4-5',
          content: [{ type: 'text', text: 'the answer text' }],
          stop_reason: 'end_turn',
          stop_sequence: null,
          usage: { input_tokens: 9, output_tokens: 4 },
        },
      },
    );
    const client = new OpenAI({ apiKey: CLIENT_KEY, baseURL: `${h.url}/v1`, maxRetries: 0 });
    const { response } = await client.chat.completions.create({ model: 'chat', messages: [{ role: 'user', content: PROMPT }] }).withResponse();
    const requestId = response.headers.get('x-request-id');
    const [event] = await eventsFor('/events', requestId);
    const call = receiver.calls.find((c) => c.path === '/events' && (c.json as Event).request.id === requestId)!;
    expect(call.headers.authorization).toBe(`Bearer ${AUDIT_TOKEN}`);
    expect(call.headers['x-gateway-event']).toBe('request.completed');
    expect(event).toMatchObject({
      version: 1,
      type: 'request.completed',
      request: {
        id: requestId,
        key_id: null,
        model: 'chat',
        pool: 'chat',
        lane: 'claude',
        provider: 'anthropic',
        upstream_model: 'claude-sonnet-4-5',
        protocols: { ingress: 'openai', egress: 'anthropic' },
        stream: false,
        status: 200,
        client_gone: false,
        error: null,
        usage: { input_tokens: 9, output_tokens: 4, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0 },
        cost_usd: '0.00008700', // 9 in at $3 and 4 out at $15 per million (the shipped catalog's price)
        failovers: 1,
        attempts: [
          { lane: 'priced', provider: 'openai', outcome: 'lane_fault', status: 500, ms: expect.any(Number) },
          { lane: 'claude', provider: 'anthropic', outcome: 'success', status: 200, ms: expect.any(Number) },
        ],
      },
    });
    for (const text of [PROMPT, 'the answer text', CLIENT_KEY, UPSTREAM_OPENAI_KEY, UPSTREAM_ANTHROPIC_KEY, AUDIT_TOKEN, 'SECRETPATH'])
      expect(call.text).not.toContain(text);
    expect(eventsAt('/failures/SECRETPATH').filter((e) => e.request.id === requestId)).toEqual([]); // that webhook wants failures only
  });

  it('Anthropic SDK streaming a priced model across protocols: cost as an exact USD string', async () => {
    h.upstream.enqueue({
      json: openaiChatCompletion({ id: 'c1', model: 'priced-upstream', text: 'hello', usage: { prompt_tokens: 1000, completion_tokens: 500 } }),
    });
    const client = new Anthropic({ apiKey: CLIENT_KEY, baseURL: h.url, maxRetries: 0 });
    const { response } = await client.messages.create({ model: 'priced', max_tokens: 50, messages: [{ role: 'user', content: PROMPT }] }).withResponse();
    const [event] = await eventsFor('/events', response.headers.get('x-request-id'));
    expect(event!.request).toMatchObject({
      model: 'priced',
      pool: null,
      protocols: { ingress: 'anthropic', egress: 'openai' },
      cost_usd: '0.00200000',
      status: 200,
    });
  });

  it('a failed request goes to both webhooks as request.failed', async () => {
    const res = await fetch(`${h.url}/v1/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'no-such-model', messages: [{ role: 'user', content: PROMPT }] }),
    });
    expect(res.status).toBe(404);
    const requestId = res.headers.get('x-request-id');
    const [audit] = await eventsFor('/events', requestId);
    const [failure] = await eventsFor('/failures/SECRETPATH', requestId);
    expect(audit).toMatchObject({
      type: 'request.failed',
      request: { status: 404, error: { kind: 'not_found', code: 'model_not_found' }, model: null, attempts: [] },
    });
    expect(failure!.request).toEqual(audit!.request);
    expect(failure!.id).not.toBe(audit!.id);
  });

  it('a receiver failing with 500 gets the event again, with backoff, until it takes it', async () => {
    let failures = 0;
    receiver.respond = (call, res) => {
      if (call.path === '/events' && failures < 2) {
        failures++;
        return answerJson(res, 500, {});
      }
      answerJson(res, 200, { allow: true });
    };
    const before = h.gateway.hooks.list().find((x) => x.name === 'audit')!.delivery!;
    const res = await fetch(`${h.url}/v1/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'gpt', messages: [{ role: 'user', content: 'x' }] }),
    });
    expect(res.status).toBe(200);
    const attempts = await eventsFor('/events', res.headers.get('x-request-id'), 3);
    expect(new Set(attempts.map((e) => e.id)).size).toBe(1);
    const tries = receiver.calls.filter((c) => c.path === '/events').map((c) => c.headers['x-gateway-delivery-attempt']);
    expect(tries).toEqual(['1', '2', '3']);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const after = h.gateway.hooks.list().find((x) => x.name === 'audit')!.delivery!;
    expect(after.delivered - before.delivered).toBe(1);
    expect(after.retries - before.retries).toBe(2);
  });
});

describe('GET /api/v1/admin/hooks', () => {
  it('lists every hook in config order with its kind, masked target, events and counters', async () => {
    receiver.respond = (call, res) => answerJson(res, 200, call.path.startsWith('/gate') ? { allow: false, reason: 'no' } : {});
    const denied = await fetch(`${h.url}/v1/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'gpt', messages: [{ role: 'user', content: 'x' }] }),
    });
    expect(denied.status).toBe(403);
    await eventsFor('/failures/SECRETPATH', denied.headers.get('x-request-id'));
    const res = await fetch(`${h.adminUrl}/api/v1/admin/hooks`);
    expect(res.status).toBe(200);
    const text = await res.text();
    for (const secret of [AUDIT_TOKEN, 'SECRETPATH', 'abc']) expect(text).not.toContain(secret);
    const { data } = JSON.parse(text) as { data: Record<string, unknown>[] };
    expect(data.map((x) => [x.name, x.kind, x.target, x.events])).toEqual([
      ['policy', 'gate', `${receiver.url}/gate?token=***`, ['request.gate']],
      ['audit', 'webhook', `${receiver.url}/events`, ['request.completed', 'request.failed']],
      ['failures', 'webhook', `${receiver.url}/***`, ['request.failed']],
    ]);
    expect(data[0]).toMatchObject({
      timeout_ms: 1000,
      on_error: 'allow',
      gate: { calls: expect.any(Number), allowed: expect.any(Number), denied: 1, errors: 0 },
    });
    expect(data[0]).not.toHaveProperty('delivery');
    expect(data[1]).toMatchObject({ timeout_ms: 5000, delivery: { queued: 0, in_flight: expect.any(Number), failed: 0, dropped: 0 } });
    expect((data[1]!.delivery as { delivered: number }).delivered).toBeGreaterThanOrEqual(5);
    expect(data[1]).not.toHaveProperty('on_error');
    expect(data[2]).toMatchObject({ delivery: { delivered: expect.any(Number) } });
  });
});

describe('stopping the gateway', () => {
  it('sends the queued events before it stops', async () => {
    const g = await startHarness({ extraYaml: `hooks:\n  - { name: audit, kind: webhook, url: "${receiver.url}/flush", concurrency: 1 }\n` });
    const release: (() => void)[] = [];
    receiver.respond = (call, res) =>
      call.path === '/flush'
        ? new Promise<void>((resolve) =>
            release.push(() => {
              answerJson(res, 200, {});
              resolve();
            }),
          )
        : answerJson(res, 200, {});
    for (let i = 0; i < 4; i++)
      await (
        await fetch(`${g.url}/v1/chat/completions`, { method: 'POST', body: JSON.stringify({ model: 'gpt', messages: [{ role: 'user', content: 'x' }] }) })
      ).arrayBuffer();
    await receiver.waitForCalls(1);
    expect(g.gateway.hooks.list()[0]?.delivery).toMatchObject({ queued: 3, inFlight: 1, delivered: 0 });
    const drain = setInterval(() => release.splice(0).forEach((r) => r()), 5);
    await g.close();
    clearInterval(drain);
    expect(receiver.calls.filter((c) => c.path === '/flush')).toHaveLength(4);
    expect(g.gateway.hooks.list()[0]?.delivery).toMatchObject({ queued: 0, inFlight: 0, delivered: 4, dropped: 0 });
  });
});
