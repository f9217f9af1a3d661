// The webhook delivery engine against a real receiver: events built from records, retries with
// backoff after 5xx and network errors, a bounded queue that drops and counts, a bounded flush on
// close. Waiting is injected: retries run at once, and the waits asked for are recorded.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Agent } from 'undici';
import type { WebhookSettings } from '../../server/hooks/hook-settings.ts';
import { backoffMs } from '../../server/hooks/webhook-backoff.ts';
import { WebhookDelivery, type DeliveryTimers } from '../../server/hooks/webhook-delivery.ts';
import { webhookEvent } from '../../server/hooks/webhook-event.ts';
import { createLogger } from '../../server/shared/logger.ts';
import { answerJson, startHookReceiver, type HookReceiver } from '../support/hook-receiver.ts';
import { fabricatedRecord } from './fabricated-record.ts';

const NOW = Date.UTC(2026, 0, 2, 3, 4, 6);
const HEADER_SECRET = 'webhook-bearer-s3cret';

let receiver: HookReceiver;
let agent: Agent;
let waits: number[];
const timers: DeliveryTimers = {
  sleep: async (ms) => void waits.push(ms),
  random: () => 0.5,
  now: () => NOW,
};
const delivery = (overrides: Partial<WebhookSettings> = {}) =>
  new WebhookDelivery(
    {
      kind: 'webhook',
      name: 'audit',
      url: `${receiver.url}/events`,
      target: `${receiver.url}/events`,
      headers: { authorization: `Bearer ${HEADER_SECRET}` },
      timeoutMs: 2000,
      events: ['request.completed', 'request.failed'],
      queueSize: 100,
      concurrency: 2,
      maxRetries: 3,
      backoff: { initialMs: 100, maxMs: 1000 },
      ...overrides,
    },
    { dispatcher: agent, log: createLogger('silent'), timers },
  );

beforeEach(async () => {
  receiver = await startHookReceiver((_, res) => answerJson(res, 204, {}));
  agent = new Agent();
  waits = [];
});
afterEach(async () => {
  await receiver.close();
  await agent.close();
});

describe('webhook event', () => {
  it('is a pure function of the record, the id and the time, in the documented version 1 shape', () => {
    const record = fabricatedRecord({ requestId: 'req_abc' });
    const event = webhookEvent(record, { id: 'evt_1', now: new Date(NOW) });
    expect(event).toEqual({
      version: 1,
      id: 'evt_1',
      type: 'request.completed',
      created_at: '2026-01-02T03:04:06.000Z',
      request: {
        id: 'req_abc',
        started_at: '2026-01-02T03:04:05.678Z',
        config_version: 'cfg_0123456789abcdef',
        key_id: 'key_01JABCDEFGHJKMNPQRSTVWXYZ0',
        model: 'chat',
        pool: 'chat',
        lane: 'claude',
        provider: 'anthropic',
        upstream_model: 'claude-sonnet-4-5',
        protocols: { ingress: 'openai', egress: 'anthropic' },
        operation: 'chat',
        stream: true,
        status: 200,
        client_gone: false,
        finish_reason: 'stop',
        error: null,
        usage: { input_tokens: 12, output_tokens: 5, cache_read_tokens: 2, cache_write_tokens: 0, reasoning_tokens: 1 },
        cost_usd: '0.00001700',
        latency_ms: 812.3,
        ttfb_ms: 240.1,
        upstream_ms: 790.1,
        failovers: 1,
        attempts: [
          { lane: 'gpt', provider: 'openai', outcome: 'lane_fault', status: 500, ms: 20 },
          { lane: 'claude', provider: 'anthropic', outcome: 'success', status: 200, ms: 780 },
        ],
        warnings: [{ kind: 'dropped', path: 'logit_bias' }],
      },
    });
    expect(webhookEvent(record, { id: 'evt_1', now: new Date(NOW) })).toEqual(event);
  });

  it('a failed request, a request without a lane or a price: request.failed with nulls', () => {
    const event = webhookEvent(
      fabricatedRecord({
        status: 404,
        errorKind: 'not_found',
        errorCode: 'model_not_found',
        model: undefined,
        pool: undefined,
        lane: undefined,
        provider: undefined,
        upstreamModel: undefined,
        egress: undefined,
        keyId: undefined,
        usage: null,
        costMicrocents: undefined,
        ttfbMs: undefined,
        finishReason: undefined,
        attempts: [],
        warnings: [],
      }),
      { id: 'evt_2', now: new Date(NOW) },
    );
    expect(event.type).toBe('request.failed');
    expect(event.request).toMatchObject({
      key_id: null,
      model: null,
      pool: null,
      lane: null,
      provider: null,
      upstream_model: null,
      protocols: { ingress: 'openai', egress: null },
      status: 404,
      error: { kind: 'not_found', code: 'model_not_found' },
      usage: null,
      cost_usd: null,
      ttfb_ms: null,
      finish_reason: null,
      failovers: 0,
      attempts: [],
    });
    expect(webhookEvent(fabricatedRecord({ clientGone: true, status: 200 }), { id: 'e', now: new Date(NOW) }).type).toBe('request.failed');
  });
});

describe('delivery', () => {
  it('POSTs each event as JSON with its headers; counts it delivered', async () => {
    const webhook = delivery();
    const record = fabricatedRecord();
    webhook.record(record);
    const [call] = await receiver.waitForCalls(1);
    await webhook.close(1000);
    expect(call!.path).toBe('/events');
    expect(call!.headers).toMatchObject({
      'content-type': 'application/json',
      authorization: `Bearer ${HEADER_SECRET}`,
      'x-gateway-event': 'request.completed',
      'x-gateway-delivery-attempt': '1',
      'user-agent': expect.stringMatching(/^gateway\//),
    });
    const event = call!.json as { id: string };
    expect(call!.headers['x-gateway-event-id']).toBe(event.id);
    expect(event.id).toMatch(/^evt_[0-9a-f]{24}$/);
    expect(event).toEqual(webhookEvent(record, { id: event.id, now: new Date(NOW) }));
    expect(call!.text).not.toContain(HEADER_SECRET);
    expect(webhook.counters).toEqual({ queued: 0, inFlight: 0, delivered: 1, failed: 0, retries: 0, dropped: 0 });
  });

  it('retries after 500 with growing, jittered waits; the same event id on every try', async () => {
    receiver.respond = (_, res, i) => answerJson(res, i < 2 ? 500 : 200, {});
    const webhook = delivery();
    webhook.record(fabricatedRecord());
    const calls = await receiver.waitForCalls(3);
    await webhook.close(1000);
    expect(calls.map((c) => c.headers['x-gateway-delivery-attempt'])).toEqual(['1', '2', '3']);
    expect(new Set(calls.map((c) => c.headers['x-gateway-event-id'])).size).toBe(1);
    expect(waits).toEqual([50, 100]); // half (random 0.5) of 100 x 2^retry
    expect(webhook.counters).toMatchObject({ delivered: 1, retries: 2, failed: 0 });
  });

  it('retries a connection reset and a 429 (its Retry-After a floor on the wait)', async () => {
    receiver.respond = (_, res, i) => {
      if (i === 0) return void res.socket?.destroy();
      if (i === 1) {
        res.writeHead(429, { 'retry-after': '0.8' });
        return void res.end();
      }
      answerJson(res, 200, {});
    };
    const webhook = delivery();
    webhook.record(fabricatedRecord());
    await receiver.waitForCalls(3);
    await webhook.close(1000);
    expect(waits).toEqual([50, 800]);
    expect(webhook.counters).toMatchObject({ delivered: 1, retries: 2 });
  });

  it('gives up after max_retries, counted as failed', async () => {
    receiver.respond = (_, res) => answerJson(res, 503, {});
    const webhook = delivery({ maxRetries: 2 });
    webhook.record(fabricatedRecord());
    await receiver.waitForCalls(3);
    await webhook.close(1000);
    expect(receiver.calls).toHaveLength(3);
    expect(webhook.counters).toMatchObject({ delivered: 0, failed: 1, retries: 2, dropped: 0 });
  });

  it('a 400 is not retried: the receiver refuses the event itself', async () => {
    receiver.respond = (_, res) => answerJson(res, 400, { error: 'bad event' });
    const webhook = delivery();
    webhook.record(fabricatedRecord());
    await receiver.waitForCalls(1);
    await webhook.close(1000);
    expect(receiver.calls).toHaveLength(1);
    expect(webhook.counters).toMatchObject({ failed: 1, retries: 0 });
  });

  it('sends only the configured events', async () => {
    const webhook = delivery({ events: ['request.failed'] });
    webhook.record(fabricatedRecord({ status: 200 }));
    webhook.record(fabricatedRecord({ status: 502, errorKind: 'server' }));
    await webhook.close(1000);
    expect(receiver.calls.map((c) => c.headers['x-gateway-event'])).toEqual(['request.failed']);
  });
});

describe('the bounded queue', () => {
  it('when full, drops new events and counts them; record() never waits for the receiver', async () => {
    const release: (() => void)[] = [];
    receiver.respond = (_, res) =>
      new Promise<void>((resolve) =>
        release.push(() => {
          answerJson(res, 200, {});
          resolve();
        }),
      );
    const webhook = delivery({ concurrency: 1, queueSize: 2 });
    const started = performance.now();
    for (let i = 0; i < 5; i++) webhook.record(fabricatedRecord());
    expect(performance.now() - started).toBeLessThan(50);
    await receiver.waitForCalls(1);
    expect(webhook.counters).toEqual({ queued: 2, inFlight: 1, delivered: 0, failed: 0, retries: 0, dropped: 2 });
    // Let every POST answer: the two queued go out one at a time.
    const drain = setInterval(() => release.splice(0).forEach((r) => r()), 5);
    await webhook.close(2000);
    clearInterval(drain);
    expect(receiver.calls).toHaveLength(3);
    expect(webhook.counters).toMatchObject({ queued: 0, inFlight: 0, delivered: 3, dropped: 2 });
  });

  it('at most `concurrency` POSTs are in flight', async () => {
    let inFlight = 0;
    let most = 0;
    receiver.respond = async (_, res) => {
      most = Math.max(most, ++inFlight);
      await new Promise((resolve) => setTimeout(resolve, 20));
      inFlight--;
      answerJson(res, 200, {});
    };
    const webhook = delivery({ concurrency: 3 });
    for (let i = 0; i < 12; i++) webhook.record(fabricatedRecord());
    await webhook.close(5000);
    expect(webhook.counters.delivered).toBe(12);
    expect(most).toBe(3);
  });
});

describe('close', () => {
  it('flushes queued events within the deadline', async () => {
    const webhook = delivery({ concurrency: 1 });
    for (let i = 0; i < 5; i++) webhook.record(fabricatedRecord());
    await webhook.close(2000);
    expect(receiver.calls).toHaveLength(5);
    expect(webhook.counters).toMatchObject({ delivered: 5, queued: 0, dropped: 0 });
  });

  it('a receiver that never answers: close returns at the deadline, what was left is dropped; later events too', async () => {
    receiver.respond = () => 'hang';
    const webhook = delivery({ concurrency: 1 });
    for (let i = 0; i < 3; i++) webhook.record(fabricatedRecord());
    await receiver.waitForCalls(1);
    const started = performance.now();
    await webhook.close(150);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(webhook.counters).toEqual({ queued: 0, inFlight: 0, delivered: 0, failed: 0, retries: 0, dropped: 3 });
    webhook.record(fabricatedRecord());
    expect(webhook.counters.dropped).toBe(4);
  });
});

describe('backoff', () => {
  const settings = { initialMs: 500, maxMs: 30_000 };
  it('full jitter under an exponential ceiling, capped', () => {
    expect([0, 1, 2, 3].map((retry) => backoffMs(settings, retry, () => 0.999_999))).toEqual([500, 1000, 2000, 4000]);
    expect(backoffMs(settings, 10, () => 0.999_999)).toBe(30_000);
    expect(backoffMs(settings, 3, () => 0)).toBe(0);
    expect(backoffMs(settings, 3, () => 0.25)).toBe(1000);
    expect(backoffMs(settings, 100, () => 0.5)).toBe(15_000); // no overflow on a large retry count
  });
  it('a Retry-After is a floor, still capped by max', () => {
    expect(backoffMs(settings, 0, () => 0.1, 7000)).toBe(7000);
    expect(backoffMs(settings, 0, () => 0.1, 120_000)).toBe(30_000);
  });
});
