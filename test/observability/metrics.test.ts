// GET /metrics after real traffic: the OpenAI SDK through the gateway to the mock upstream (a
// same-protocol answer, a translated stream, a failover that trips a breaker, a refusal), the
// exposition checked by the real `promtool check metrics`, and specific series asserted.
import OpenAI from 'openai';
import { AggregatorRegistry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropicMessage, anthropicStreamEvents } from '../../server/demo/anthropic-replies.ts';
import { openaiChatCompletion } from '../../server/demo/openai-replies.ts';
import { startHarness, type Harness } from '../support/gateway-harness.ts';
import { parseSamples, promtoolCheck, sample, scrape, value, type Scrape } from '../support/prometheus-scrape.ts';

let h: Harness;
let scraped: Scrape;

const serverError = { status: 500, json: { error: { message: 'boom', type: 'server_error', param: null, code: null } } };

beforeAll(async () => {
  h = await startHarness({
    extraYaml:
      'pools:\n  flaky: { members: [ { model: gpt, weight: 10 }, { model: claude, weight: 1 } ], breaker: { consecutive_failures: 1, open_ms: 60000 } }\n',
  });
  const openai = new OpenAI({ apiKey: 'client-key', baseURL: `${h.url}/v1`, maxRetries: 0 });

  // Same protocol, with cached tokens.
  h.upstream.enqueue({
    json: openaiChatCompletion({ id: 'c1', model: 'gpt-4.1-mini', text: 'hello', usage: { prompt_tokens: 11, completion_tokens: 5, cached_tokens: 4 } }),
  });
  await openai.chat.completions.create({ model: 'gpt', messages: [{ role: 'user', content: 'hi' }] });

  // Translated stream (OpenAI client, Anthropic lane) with a field the lane cannot carry.
  h.upstream.enqueue({
    events: anthropicStreamEvents({ id: 'm1', model: 'claude-sonnet-4-5', text: 'one two', usage: { input_tokens: 9, output_tokens: 4 } }),
  });
  const stream = await openai.chat.completions.create({ model: 'claude', stream: true, seed: 7, messages: [{ role: 'user', content: 'count' }] });
  for await (const _chunk of stream) {
    /* drain */
  }

  // Failover: the gpt lane fails (its breaker in this pool trips at once), claude answers.
  h.upstream.enqueue(serverError, {
    json: anthropicMessage({ id: 'm2', model: 'claude-sonnet-4-5', text: 'rescued', usage: { input_tokens: 7, output_tokens: 3 } }),
  });
  await openai.chat.completions.create({ model: 'flaky', messages: [{ role: 'user', content: 'hi' }] });

  // A name nobody configured.
  await fetch(`${h.url}/v1/chat/completions`, {
    method: 'POST',
    body: JSON.stringify({ model: 'client-invented-name', messages: [{ role: 'user', content: 'x' }] }),
  });

  scraped = await scrape(h.url);
});
afterAll(() => h.close());

describe('GET /metrics', () => {
  it('passes promtool check metrics, in the Prometheus text format', () => {
    const check = promtoolCheck(scraped.text);
    expect(check.output).toBe('');
    expect(check.status).toBe(0);
    expect(scraped.contentType).toMatch(/^text\/plain; version=0\.0\.4/);
  });

  it('counts requests by ingress, model, lane and status class; an unknown name gets no label of its own', () => {
    expect(value(scraped, 'gateway_requests_total', { ingress: 'openai', operation: 'chat', model: 'gpt', lane: 'gpt', status_class: '2xx' })).toBe(1);
    expect(value(scraped, 'gateway_requests_total', { ingress: 'openai', operation: 'chat', model: 'claude', lane: 'claude', status_class: '2xx' })).toBe(1);
    expect(value(scraped, 'gateway_requests_total', { ingress: 'openai', operation: 'chat', model: 'flaky', lane: 'claude', status_class: '2xx' })).toBe(1);
    expect(value(scraped, 'gateway_requests_total', { ingress: 'openai', operation: 'chat', model: '', lane: '', status_class: '4xx' })).toBe(1);
    expect(scraped.text).not.toContain('client-invented-name');
  });

  it('counts attempts by outcome class, failovers, and reads breaker state and trips', () => {
    expect(value(scraped, 'gateway_upstream_attempts_total', { lane: 'gpt', provider: 'openai', outcome: 'lane_fault' })).toBe(1);
    expect(value(scraped, 'gateway_upstream_attempts_total', { lane: 'gpt', provider: 'openai', outcome: 'success' })).toBe(1);
    expect(value(scraped, 'gateway_upstream_attempts_total', { lane: 'claude', provider: 'anthropic', outcome: 'success' })).toBe(2);
    expect(value(scraped, 'gateway_failovers_total', { model: 'flaky' })).toBe(1);
    expect(value(scraped, 'gateway_breaker_state', { pool: 'flaky', lane: 'gpt', state: 'open' })).toBe(1);
    expect(value(scraped, 'gateway_breaker_state', { pool: 'flaky', lane: 'gpt', state: 'closed' })).toBe(0);
    expect(value(scraped, 'gateway_breaker_state', { pool: 'flaky', lane: 'claude', state: 'closed' })).toBe(1);
    expect(value(scraped, 'gateway_breaker_state', { pool: 'gpt', lane: 'gpt', state: 'closed' })).toBe(1); // a model on its own is a pool of one
    expect(value(scraped, 'gateway_breaker_trips_total', { pool: 'flaky', lane: 'gpt' })).toBe(1);
    expect(sample(scraped, 'gateway_breaker_trips_total', { pool: 'flaky', lane: 'claude' })?.value).toBe(0);
    expect(sample(scraped, 'gateway_lane_in_flight', { lane: 'gpt' })?.value).toBe(0);
  });

  it('counts translations by (from, to) and warnings by kind', () => {
    expect(value(scraped, 'gateway_translations_total', { from: 'openai', to: 'anthropic' })).toBe(2);
    expect(value(scraped, 'gateway_translation_warnings_total', { kind: 'dropped' })).toBe(1);
  });

  it('counts tokens by type and spend by model and lane', () => {
    expect(value(scraped, 'gateway_tokens_total', { model: 'gpt', lane: 'gpt', type: 'input' })).toBe(11);
    expect(value(scraped, 'gateway_tokens_total', { model: 'gpt', lane: 'gpt', type: 'output' })).toBe(5);
    expect(value(scraped, 'gateway_tokens_total', { model: 'gpt', lane: 'gpt', type: 'cache_read' })).toBe(4);
    expect(value(scraped, 'gateway_tokens_total', { model: 'claude', lane: 'claude', type: 'input' })).toBe(9);
    expect(value(scraped, 'gateway_tokens_total', { model: 'flaky', lane: 'claude', type: 'output' })).toBe(3);
    // gpt-4.1-mini: 7 uncached input at $0.40/M, 4 cached at $0.10/M, 5 output at $1.60/M.
    expect(value(scraped, 'gateway_cost_usd_total', { model: 'gpt', lane: 'gpt' })).toBeCloseTo((7 * 0.4 + 4 * 0.1 + 5 * 1.6) / 1e6, 12);
    // claude-sonnet-4-5: $3/M input, $15/M output.
    expect(value(scraped, 'gateway_cost_usd_total', { model: 'claude', lane: 'claude' })).toBeCloseTo((9 * 3 + 4 * 15) / 1e6, 12);
  });

  it('has latency histograms for the whole request, the first byte and the gateway overhead', () => {
    const gpt = { model: 'gpt', lane: 'gpt', stream: 'false' };
    expect(value(scraped, 'gateway_request_duration_seconds_count', gpt)).toBe(1);
    expect(value(scraped, 'gateway_request_duration_seconds_sum', gpt)).toBeGreaterThan(0);
    expect(value(scraped, 'gateway_request_duration_seconds_bucket', { le: '+Inf', ...gpt })).toBe(1);
    expect(value(scraped, 'gateway_time_to_first_byte_seconds_count', { model: 'claude', lane: 'claude', stream: 'true' })).toBe(1);
    expect(value(scraped, 'gateway_overhead_seconds_count', { ingress: 'openai', egress: 'anthropic', stream: 'true' })).toBe(1);
    expect(value(scraped, 'gateway_overhead_seconds_count', { ingress: 'openai', egress: 'anthropic', stream: 'false' })).toBe(1);
    expect(value(scraped, 'gateway_overhead_seconds_count', { ingress: 'openai', egress: 'openai', stream: 'false' })).toBe(1);
    // The upstream answered at once: the overhead is small, and never more than the whole.
    expect(value(scraped, 'gateway_overhead_seconds_sum', { ingress: 'openai', egress: 'openai', stream: 'false' })).toBeLessThanOrEqual(
      value(scraped, 'gateway_request_duration_seconds_sum', gpt),
    );
  });

  it('gives its registry as JSON that sums across workers (AggregatorRegistry), routing state taken once', async () => {
    const json = await h.gateway.metrics!.getMetricsAsJSON();
    const aggregated = AggregatorRegistry.aggregate([structuredClone(json), structuredClone(json)]);
    const both = { samples: parseSamples(await aggregated.metrics()) };
    expect(value(both, 'gateway_requests_total', { ingress: 'openai', operation: 'chat', model: 'gpt', lane: 'gpt', status_class: '2xx' })).toBe(2);
    expect(value(both, 'gateway_breaker_trips_total', { pool: 'flaky', lane: 'gpt' })).toBe(1);
  });
});

describe('metrics switched off', () => {
  it('GET /metrics is not served', async () => {
    const off = await startHarness({ extraYaml: 'metrics: { enabled: false }\n' });
    try {
      expect((await fetch(`${off.url}/metrics`)).status).toBe(404);
      expect(off.gateway.metrics).toBeUndefined();
    } finally {
      await off.close();
    }
  });
});

describe('governance rejections', () => {
  it('are counted by reason', async () => {
    const g = await startHarness({ extraYaml: 'db_path: ./gateway.db\ngovernance: on\n' });
    try {
      const key = (await (
        await fetch(`${g.adminUrl}/api/v1/admin/keys`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ rpm: 1 }) })
      ).json()) as { secret: string };
      const call = (secret?: string) =>
        fetch(`${g.url}/v1/chat/completions`, {
          method: 'POST',
          headers: secret === undefined ? {} : { authorization: `Bearer ${secret}` },
          body: JSON.stringify({ model: 'gpt', messages: [{ role: 'user', content: 'x' }] }),
        }).then((r) => r.arrayBuffer());
      await call();
      await call(key.secret);
      await call(key.secret);
      const s = await scrape(g.url);
      // Both are refused from the headers, before the body (which names the model) is read.
      expect(value(s, 'gateway_rejections_total', { model: '', reason: 'authentication' })).toBe(1);
      expect(value(s, 'gateway_rejections_total', { model: '', reason: 'rate_limit' })).toBe(1);
      expect(s.text).not.toContain(key.secret);
      expect(promtoolCheck(s.text).status).toBe(0);
    } finally {
      await g.close();
    }
  });
});
