// OTLP export end to end: a real gateway exports to a loopback receiver that decodes the real
// protobuf payloads. Spans follow the GenAI semantic conventions, attempts are children of their
// request, no prompt or completion text leaves by default, and a collector that hangs or is down
// never slows a request.
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anthropicMessage, anthropicStreamEvents } from '../../server/demo/anthropic-replies.ts';
import { openaiChatCompletion, openaiChatStreamEvents } from '../../server/demo/openai-replies.ts';
import { startHarness, type Harness } from '../support/gateway-harness.ts';
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver.ts';
import { scrape, value } from '../support/prometheus-scrape.ts';

const PROMPT_MARKER = 'PROMPT-TEXT-7f3a9c';
const COMPLETION_MARKER = 'COMPLETION-TEXT-b41e0d';
const OTLP_TOKEN = 'otlp-token-5e8d2a';
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER_SPAN = '00f067aa0ba902b7';
// `mixed` picks claude first, which cannot express n: 2 and is skipped without an upstream call.
const POOLS =
  'pools:\n  flaky: { members: [ { model: gpt, weight: 10 }, { model: claude, weight: 1 } ] }\n  mixed: { members: [ { model: claude, weight: 10 }, { model: gpt, weight: 1 } ] }\n';

describe('OTLP export', () => {
  let receiver: OtlpReceiver;
  let requestIds: Record<string, string>;

  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    const h = await startHarness({
      env: { OTLP_TOKEN },
      extraYaml: `${POOLS}otlp: { endpoint: ${receiver.url}, headers: { authorization: { env: OTLP_TOKEN }, x-tenant: team-a }, metrics_interval_ms: 60000 }\n`,
    });
    const openai = new OpenAI({ apiKey: 'client-key', baseURL: `${h.url}/v1`, maxRetries: 0 });
    const messages = [{ role: 'user' as const, content: `${PROMPT_MARKER} say something` }];
    requestIds = {};

    h.upstream.enqueue({
      json: openaiChatCompletion({
        id: 'c1',
        model: 'gpt-4.1-mini',
        text: COMPLETION_MARKER,
        usage: { prompt_tokens: 11, completion_tokens: 5, cached_tokens: 4 },
      }),
    });
    requestIds.plain = (
      await openai.chat.completions.create({ model: 'gpt', messages }, { headers: { traceparent: `00-${TRACE_ID}-${CALLER_SPAN}-01` } }).withResponse()
    ).response.headers.get('x-request-id')!;

    h.upstream.enqueue(
      { status: 500, json: { error: { message: 'boom', type: 'server_error', param: null, code: null } } },
      { json: anthropicMessage({ id: 'm1', model: 'claude-sonnet-4-5', text: COMPLETION_MARKER, usage: { input_tokens: 7, output_tokens: 3 } }) },
    );
    requestIds.failover = (await openai.chat.completions.create({ model: 'flaky', messages }).withResponse()).response.headers.get('x-request-id')!;

    h.upstream.enqueue({
      events: anthropicStreamEvents({ id: 'm2', model: 'claude-sonnet-4-5', text: COMPLETION_MARKER, usage: { input_tokens: 9, output_tokens: 4 } }),
    });
    const stream = await openai.chat.completions.create({ model: 'claude', stream: true, messages }).withResponse();
    for await (const _chunk of stream.data) {
      /* drain */
    }
    requestIds.stream = stream.response.headers.get('x-request-id')!;

    h.upstream.enqueue({
      json: openaiChatCompletion({ id: 'c3', model: 'gpt-4.1-mini', text: COMPLETION_MARKER, usage: { prompt_tokens: 6, completion_tokens: 2 } }),
    });
    requestIds.skipped = (await openai.chat.completions.create({ model: 'mixed', n: 2, messages }).withResponse()).response.headers.get('x-request-id')!;

    await h.close(); // flushes the span queue and exports the metrics once more
  });
  afterAll(() => receiver.close());

  const requestSpan = (id: string): ReceivedSpan => {
    const found = receiver.spans.find((s) => s.attributes['gateway.request_id'] === id);
    if (found === undefined) throw new Error(`no span for ${id}`);
    return found;
  };
  const childrenOf = (span: ReceivedSpan) => receiver.spans.filter((s) => s.parentSpanId === span.spanId);

  it('sends the configured headers, secrets read from their references', () => {
    expect(receiver.headers.length).toBeGreaterThan(0);
    for (const headers of receiver.headers) {
      expect(headers.authorization).toBe(OTLP_TOKEN);
      expect(headers['x-tenant']).toBe('team-a');
      expect(headers['content-type']).toBe('application/x-protobuf');
    }
  });

  it("a request span with GenAI attributes, joined to the caller's trace", () => {
    const span = requestSpan(requestIds.plain!);
    expect(span).toMatchObject({ name: 'chat gpt', kind: 2, traceId: TRACE_ID, parentSpanId: CALLER_SPAN, statusCode: 0 });
    expect(span.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.system': 'openai',
      'gen_ai.request.model': 'gpt',
      'gen_ai.response.model': 'gpt-4.1-mini',
      'gen_ai.usage.input_tokens': 11,
      'gen_ai.usage.output_tokens': 5,
      'gen_ai.usage.cache_read.input_tokens': 4,
      'gen_ai.response.finish_reasons': ['stop'],
      'http.response.status_code': 200,
      'gateway.lane': 'gpt',
      'gateway.ingress': 'openai',
      'gateway.egress': 'openai',
      'gateway.failover': false,
      'gateway.stream': false,
    });
    expect(span.resource).toMatchObject({ 'service.name': 'gateway' });
    expect(childrenOf(span)).toHaveLength(1);
  });

  it("a failover: one child span per attempt, in the request span's time, with outcomes", () => {
    const span = requestSpan(requestIds.failover!);
    expect(span.attributes).toMatchObject({
      'gateway.failover': true,
      'gateway.attempts': 2,
      'gateway.pool': 'flaky',
      'gateway.lane': 'claude',
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.response.model': 'claude-sonnet-4-5',
      'gen_ai.usage.input_tokens': 7,
    });
    expect(span.parentSpanId).toBe('');
    const attempts = childrenOf(span).sort((a, b) => Number(a.startNs - b.startNs));
    expect(attempts.map((a) => [a.name, a.kind, a.attributes['gateway.attempt.outcome'], a.attributes['http.response.status_code'], a.statusCode])).toEqual([
      ['chat gpt-4.1-mini', 3, 'lane_fault', 500, 2],
      ['chat claude-sonnet-4-5', 3, 'success', 200, 0],
    ]);
    expect(attempts[1]!.attributes).toMatchObject({
      'gen_ai.request.model': 'claude-sonnet-4-5',
      'gen_ai.provider.name': 'anthropic',
      'gateway.egress': 'anthropic',
      'gateway.failover': true,
    });
    for (const attempt of attempts) {
      expect(attempt.traceId).toBe(span.traceId);
      expect(attempt.startNs).toBeGreaterThanOrEqual(span.startNs);
      expect(attempt.endNs).toBeLessThanOrEqual(span.endNs);
    }
    expect(attempts[1]!.startNs).toBeGreaterThanOrEqual(attempts[0]!.endNs);
  });

  it('a lane skipped without an upstream call is neither an attempt nor a failover, and has no span', () => {
    const span = requestSpan(requestIds.skipped!);
    expect(span.attributes).toMatchObject({ 'gateway.pool': 'mixed', 'gateway.lane': 'gpt', 'gateway.attempts': 1, 'gateway.failover': false });
    expect(childrenOf(span).map((a) => a.name)).toEqual(['chat gpt-4.1-mini']);
  });

  it('a translated stream', () => {
    const span = requestSpan(requestIds.stream!);
    expect(span.attributes).toMatchObject({ 'gateway.stream': true, 'gateway.egress': 'anthropic', 'gen_ai.usage.output_tokens': 4 });
    expect(span.attributes['gateway.ttfb_ms']).toBeGreaterThan(0);
  });

  it('never exports prompt or completion text (capture_content is off)', () => {
    expect(receiver.bodies.length).toBeGreaterThan(0);
    for (const body of receiver.bodies) {
      expect(body.includes(PROMPT_MARKER)).toBe(false);
      expect(body.includes(COMPLETION_MARKER)).toBe(false);
    }
  });

  it('exports the same metrics as GET /metrics', () => {
    const requests = receiver.metricPoints.filter((p) => p.metric === 'gateway_requests');
    expect(requests.find((p) => p.attributes.model === 'flaky')).toMatchObject({
      attributes: { ingress: 'openai', lane: 'claude', status_class: '2xx' },
      value: 1,
    });
    expect(receiver.metricPoints.find((p) => p.metric === 'gateway_upstream_attempts' && p.attributes.outcome === 'lane_fault')?.value).toBe(1);
    expect(receiver.metricPoints.find((p) => p.metric === 'gateway_request_duration_seconds' && p.attributes.model === 'gpt')?.value).toBe(1);
    expect(receiver.metricPoints.find((p) => p.metric === 'gateway_otlp_spans_dropped')?.value).toBe(0);
  });
});

describe('a collector in trouble never slows requests', () => {
  for (const trouble of ['hangs', 'is down'] as const) {
    let h: Harness;
    let receiver: OtlpReceiver | undefined;
    beforeAll(async () => {
      let endpoint: string;
      if (trouble === 'hangs') {
        receiver = await startOtlpReceiver({ hang: true });
        endpoint = receiver.url;
      } else {
        const gone = await startOtlpReceiver();
        endpoint = gone.url;
        await gone.close(); // nothing listens there any more: connections are refused
      }
      h = await startHarness({ extraYaml: `otlp: { endpoint: ${endpoint}, max_queue_size: 8, timeout_ms: 30000 }\n` });
    });
    afterAll(async () => {
      await receiver?.close();
    });

    it(`when it ${trouble}: requests stay fast, the queue stays bounded, dropped spans are counted, close does not wait for it`, async () => {
      const times: number[] = [];
      for (let i = 0; i < 40; i++) {
        const started = performance.now();
        const res = await fetch(`${h.url}/v1/chat/completions`, {
          method: 'POST',
          body: JSON.stringify({ model: 'gpt', messages: [{ role: 'user', content: 'x' }] }),
        });
        expect(res.status).toBe(200);
        await res.arrayBuffer();
        times.push(performance.now() - started);
      }
      times.sort((a, b) => a - b);
      expect(times[times.length - 1]).toBeLessThan(1000); // an export waiting 30 s would show here
      expect(times[Math.floor(times.length / 2)]).toBeLessThan(100);
      if (trouble === 'hangs') expect(receiver!.received()).toBeGreaterThan(0); // an export is really hanging

      const scraped = await scrape(h.url);
      expect(value(scraped, 'gateway_otlp_spans_dropped_total')).toBeGreaterThan(0);
      expect(value(scraped, 'gateway_otlp_span_queue_length')).toBeLessThanOrEqual(8);
      expect(value(scraped, 'gateway_otlp_spans_exported_total')).toBe(0);

      const closing = performance.now();
      await h.close();
      expect(performance.now() - closing).toBeLessThan(8_000); // a 30 s export timeout, but close flushes for 5 s at most
    }, 30_000);
  }
});

describe('capture_content: true', () => {
  it('exports prompt and completion as gen_ai.input.messages and gen_ai.output.messages, streams included', async () => {
    const receiver = await startOtlpReceiver();
    try {
      const h = await startHarness({ extraYaml: `otlp: { endpoint: ${receiver.url}, capture_content: true }\n` });
      const openai = new OpenAI({ apiKey: 'client-key', baseURL: `${h.url}/v1`, maxRetries: 0 });
      const messages = [
        { role: 'system' as const, content: 'be brief' },
        { role: 'user' as const, content: PROMPT_MARKER },
      ];
      const ids: string[] = [];
      h.upstream.enqueue({ json: openaiChatCompletion({ id: 'c1', model: 'gpt-4.1-mini', text: `${COMPLETION_MARKER}-whole` }) });
      ids.push((await openai.chat.completions.create({ model: 'gpt', messages }).withResponse()).response.headers.get('x-request-id')!);
      for (const model of ['gpt', 'claude']) {
        h.upstream.enqueue(
          model === 'gpt'
            ? {
                events: openaiChatStreamEvents(
                  { id: 'c2', model: 'gpt-4.1-mini', text: `${COMPLETION_MARKER}-${model}` },
                  { includeUsage: false, textPieces: 3 },
                ),
              }
            : { events: anthropicStreamEvents({ id: 'm', model: 'claude-sonnet-4-5', text: `${COMPLETION_MARKER}-${model}` }, { textPieces: 3 }) },
        );
        const stream = await openai.chat.completions.create({ model, stream: true, messages }).withResponse();
        for await (const _chunk of stream.data) {
          /* drain */
        }
        ids.push(stream.response.headers.get('x-request-id')!);
      }
      await h.close();
      const [whole, passthroughStream, translatedStream] = ids.map((id) => receiver.spans.find((s) => s.attributes['gateway.request_id'] === id)!);
      for (const span of [whole, passthroughStream, translatedStream]) {
        expect(JSON.parse(span!.attributes['gen_ai.input.messages'] as string)).toEqual([
          { role: 'system', parts: [{ type: 'text', content: 'be brief' }] },
          { role: 'user', parts: [{ type: 'text', content: PROMPT_MARKER }] },
        ]);
      }
      const output = (span: ReceivedSpan | undefined) => JSON.parse(span!.attributes['gen_ai.output.messages'] as string) as unknown;
      expect(output(whole)).toEqual([{ role: 'assistant', parts: [{ type: 'text', content: `${COMPLETION_MARKER}-whole` }] }]);
      expect(output(passthroughStream)).toEqual([{ role: 'assistant', parts: [{ type: 'text', content: `${COMPLETION_MARKER}-gpt` }] }]);
      expect(output(translatedStream)).toEqual([{ role: 'assistant', parts: [{ type: 'text', content: `${COMPLETION_MARKER}-claude` }] }]);
    } finally {
      await receiver.close();
    }
  });
});
