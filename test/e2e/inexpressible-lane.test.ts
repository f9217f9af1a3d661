// A pool whose lanes speak different protocols: a request one lane's protocol cannot express
// (`n: 2` on an Anthropic lane) is served by a lane that can, the skipped lane is counted and left
// untouched (breaker, probe, slot), and the 400 naming the field comes only when no lane can.
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { anthropicMessage } from '../../server/demo/anthropic-replies.ts';
import { openaiChatCompletion } from '../../server/demo/openai-replies.ts';
import { startHarness, type Harness } from '../support/gateway-harness.ts';
import { scrape } from '../support/prometheus-scrape.ts';
import { RecordCollector } from '../support/record-collector.ts';
import { FakeClock } from '../routing/fake-clock.ts';

let h: Harness;
let client: OpenAI;
const records = new RecordCollector();
const clock = new FakeClock();

// Each pool has its own rotation: its first pick is the heavier member, the Anthropic lane.
const MIXED = ['mixed', 'budget1', 'probe'];

beforeAll(async () => {
  h = await startHarness({
    clock,
    observers: [records],
    breakerYaml: 'breaker: { consecutive_failures: 1, open_ms: 10000, jitter: 0 }\n',
    extraModelsYaml: '  claude2: { provider: anthropic, model: claude-haiku-4-5, max_tokens: 100 }\n',
    extraYaml:
      `pools:\n${MIXED.map((p) => `  ${p}: { members: [ { model: claude, weight: 10 }, { model: gpt, weight: 1 } ]${p === 'budget1' ? ', max_attempts: 1' : ''} }\n`).join('')}` +
      '  anthropic-only: { members: [ { model: claude, weight: 1 }, { model: claude2, weight: 1 } ] }\n',
  });
  client = new OpenAI({ apiKey: 'client-key', baseURL: `${h.url}/v1`, maxRetries: 0 });
});
afterAll(() => h.close());
beforeEach(() => {
  h.upstream.reset();
  records.clear();
});

const twoChoices = (pool: string) => client.chat.completions.create({ model: pool, n: 2, messages: [{ role: 'user', content: 'hi' }] }).withResponse();
const gptAnswer = { json: openaiChatCompletion({ id: 'chatcmpl-n', model: 'gpt-4.1-mini', text: 'two of them' }) };
const claudeLane = (pool: string) =>
  h.gateway.routing
    .snapshot()
    .find((p) => p.pool === pool)
    ?.lanes.find((l) => l.lane === 'claude');

describe('a lane that cannot express the request is skipped when another can', () => {
  it('n: 2 goes to the OpenAI lane; the Anthropic lane is skipped, counted, and untouched', async () => {
    const before = claudeLane('mixed');
    h.upstream.enqueue(gptAnswer);
    const { data, response } = await twoChoices('mixed');
    expect(data.choices[0]?.message.content).toBe('two of them');
    expect(response.headers.get('x-gateway-lane')).toBe('gpt');
    expect(h.upstream.requests.map((r) => r.json as { model: string; n?: number }).map((b) => [b.model, b.n])).toEqual([['gpt-4.1-mini', 2]]);

    const record = await records.forRequest(response.headers.get('x-request-id')!);
    expect(record.status).toBe(200);
    expect(record.attempts.map((a) => [a.lane, a.outcome, a.detail])).toEqual([
      ['claude', 'skipped', 'cannot express n'],
      ['gpt', 'success', undefined],
    ]);
    expect(h.gateway.routing.snapshot().find((p) => p.pool === 'mixed')?.failovers).toBe(0); // a skip is not a failover
    expect(claudeLane('mixed')).toEqual(before);

    const metrics = await scrape(h.url);
    const skipped = metrics.samples.find((s) => s.name === 'gateway_upstream_attempts_total' && s.labels.lane === 'claude' && s.labels.outcome === 'skipped');
    expect(skipped?.value).toBeGreaterThanOrEqual(1);
  });

  it('a skipped lane does not use the attempt budget (max_attempts: 1)', async () => {
    h.upstream.enqueue(gptAnswer);
    const { response } = await twoChoices('budget1');
    expect(response.status).toBe(200);
    expect(response.headers.get('x-gateway-lane')).toBe('gpt');
  });

  it('a half-open lane is skipped without taking its probe, which the next request still gets', async () => {
    h.upstream.enqueue({ status: 500, json: { type: 'error', error: { type: 'api_error', message: 'boom' } } }, gptAnswer);
    await client.chat.completions.create({ model: 'probe', messages: [{ role: 'user', content: 'trip' }] });
    expect(claudeLane('probe')?.state).toBe('open');
    clock.advance(10_001);
    h.upstream.reset();
    h.upstream.enqueue(gptAnswer);
    const before = claudeLane('probe');
    expect((await twoChoices('probe')).response.headers.get('x-gateway-lane')).toBe('gpt');
    expect(claudeLane('probe')).toEqual(before);
    expect(claudeLane('probe')?.probeInFlight).toBe(false);

    h.upstream.enqueue({ json: anthropicMessage({ id: 'msg_p', model: 'claude-sonnet-4-5', text: 'probe ok', usage: { input_tokens: 1, output_tokens: 1 } }) });
    const { response } = await client.chat.completions.create({ model: 'probe', messages: [{ role: 'user', content: 'hi' }] }).withResponse();
    expect(response.headers.get('x-gateway-lane')).toBe('claude');
    expect(claudeLane('probe')?.state).toBe('closed');
  });

  it("no lane can: a 400 naming the field, in the client's protocol, and nothing sent upstream", async () => {
    const error = await twoChoices('anthropic-only').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('n');
    expect((error as Error).message).toContain('n:');
    expect(h.upstream.requests).toEqual([]);
    await records.atLeast(1); // handed over just after the response ends: it may trail the SDK
    const record = records.records.at(-1)!;
    expect(record.status).toBe(400);
    expect(record.attempts.map((a) => [a.lane, a.outcome])).toEqual([
      ['claude', 'skipped'],
      ['claude2', 'skipped'],
    ]);
  });
});
