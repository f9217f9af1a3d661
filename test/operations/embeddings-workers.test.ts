// Embeddings with two data-plane workers: each worker serves them (the embedding codecs and the
// operation pipeline load in worker threads), a budgeted key's spend adds up exactly over both
// (governance lives in the main thread), and /metrics counts every embeddings request once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { onNewConnection } from '../support/fresh-connection.ts';
import { startHarness, type Harness } from '../support/gateway-harness.ts';
import { scrape, value } from '../support/prometheus-scrape.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    workers: 2,
    extraModelsYaml: '  embed: { provider: openai, model: emb-upstream, operations: [embeddings], operation_prices: { embeddings: { input: 0.02 } } }\n',
    extraYaml: 'db_path: ./gateway.db\ngovernance: on\n',
  });
});
afterAll(() => h.close());

const N = 20;

describe('embeddings with two workers', () => {
  it('every request served, spend exact across workers, counted once in /metrics', async () => {
    const created = await fetch(`${h.adminUrl}/api/v1/admin/keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ budget_cents: 100 }),
    });
    const key = (await created.json()) as { id: string; secret: string };
    // Three words: three tokens by the mock's count, each 2 µ¢ at 0.02 USD per million.
    const body = JSON.stringify({ model: 'embed', input: 'one two three', encoding_format: 'float' });
    const results = await Promise.all(
      Array.from({ length: N }, () => onNewConnection(`${h.url}/v1/embeddings`, { method: 'POST', body, headers: { authorization: `Bearer ${key.secret}` } })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(N).fill(200));
    const served = await h.gateway.workerTelemetry();
    expect(served.every((w) => w.requests > 0)).toBe(true);
    expect(h.gateway.governance!.listKeys().find((k) => k.id === key.id)!.spentMicrocents).toBe(BigInt(N * 3 * 2));
    const scraped = await scrape(h.url); // metrics need no key unless metrics.require_key
    expect(value(scraped, 'gateway_requests_total', { ingress: 'openai', operation: 'embeddings', model: 'embed', lane: 'embed', status_class: '2xx' })).toBe(
      N,
    );
  });
});
