// A pool of embedding models in two protocols: a failing OpenAI lane fails over to a Gemini lane
// before the client sees anything, its breaker opens, and the request shows as an embeddings
// request in the record, /metrics and the span attributes; a gate hook is asked like for chat.
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { demoVector } from '../../server/demo/demo-vector.ts';
import { requestAttributes } from '../../server/observability/genai-attributes.ts';
import { startHarness, type Harness } from '../support/gateway-harness.ts';
import { scrape, value } from '../support/prometheus-scrape.ts';
import { RecordCollector } from '../support/record-collector.ts';

let h: Harness;
const records = new RecordCollector();
const serverError = { status: 500, json: { error: { message: 'boom', type: 'server_error', param: null, code: null } } };

beforeAll(async () => {
  h = await startHarness({
    sixProtocols: true,
    observers: [records],
    breakerYaml: 'breaker: { consecutive_failures: 1, open_ms: 60000 }\n',
    extraModelsYaml:
      '  e-openai: { provider: openai, model: text-embedding-3-small }\n  e-gemini: { provider: gemini, model: gemini-embedding-001 }\n  e-cohere: { provider: cohere, model: embed-v4.0 }\n',
    extraYaml:
      'pools:\n  embed: { members: [ { model: e-openai, weight: 1000 }, { model: e-gemini, weight: 1 } ] }\n  mixed: { members: [ { model: gpt, weight: 1000 }, { model: e-cohere, weight: 1 } ] }\n',
  });
});
afterAll(() => h.close());
beforeEach(() => {
  h.upstream.reset();
  records.records.length = 0;
});

describe('a pool of embedding models', () => {
  it('fails over from a failing OpenAI lane to a Gemini lane; the breaker then skips the failed lane', async () => {
    h.upstream.enqueue(serverError);
    const openai = new OpenAI({ apiKey: 'k', baseURL: `${h.url}/v1`, maxRetries: 0 });
    const { data, response } = await openai.embeddings.create({ model: 'embed', input: ['a b', 'c'] }).withResponse();
    expect(data.data.map((d) => d.embedding)).toEqual([demoVector('a b'), demoVector('c')]);
    expect(response.headers.get('x-gateway-lane')).toBe('e-gemini');
    expect(h.upstream.requests.map((r) => r.path)).toEqual(['/v1/embeddings', '/v1beta/models/gemini-embedding-001:batchEmbedContents']);
    await records.atLeast(1);
    const record = records.records[0]!;
    expect(record).toMatchObject({ operation: 'embeddings', pool: 'embed', lane: 'e-gemini', egress: 'gemini', status: 200 });
    expect(record.attempts.map((a) => [a.lane, a.outcome])).toEqual([
      ['e-openai', 'lane_fault'],
      ['e-gemini', 'success'],
    ]);
    expect(requestAttributes(record)['gen_ai.operation.name']).toBe('embeddings');

    h.upstream.reset();
    await openai.embeddings.create({ model: 'embed', input: 'again' });
    expect(h.upstream.requests.map((r) => r.path)).toEqual(['/v1beta/models/gemini-embedding-001:batchEmbedContents']); // breaker open

    const scraped = await scrape(h.url);
    expect(
      value(scraped, 'gateway_requests_total', { ingress: 'openai', operation: 'embeddings', model: 'embed', lane: 'e-gemini', status_class: '2xx' }),
    ).toBe(2);
  });

  it('a pool of a chat and an embedding model: each operation goes to the member that serves it', async () => {
    const openai = new OpenAI({ apiKey: 'k', baseURL: `${h.url}/v1`, maxRetries: 0 });
    const { response } = await openai.embeddings.create({ model: 'mixed', input: 'x' }).withResponse();
    expect(response.headers.get('x-gateway-lane')).toBe('e-cohere');
    expect(h.upstream.requests.map((r) => r.path)).toEqual(['/v2/embed']);
    await records.atLeast(1);
    expect(records.records[0]!.attempts.map((a) => [a.lane, a.outcome])).toEqual([
      ['gpt', 'skipped'],
      ['e-cohere', 'success'],
    ]);
    h.upstream.reset();
    const chat = await openai.chat.completions.create({ model: 'mixed', messages: [{ role: 'user', content: 'hi' }] });
    expect(chat.choices[0]?.message.content).toBeTypeOf('string');
    expect(h.upstream.requests.map((r) => r.path)).toEqual(['/v1/chat/completions']);
  });
});
