// Rerank in Cohere's shape with the official cohere-ai SDK: v2 (CohereClientV2.rerank) and v1
// (CohereClient.rerank, the shape Jina-style clients send to /v1/rerank) forwarded to a Cohere lane
// with only the model rewritten; to a Bedrock lane hosting Cohere Rerank as InvokeModel and back;
// charged per search exactly; an Anthropic lane asked to rerank refused naming the operation.
import { CohereClient, CohereClientV2, CohereError } from 'cohere-ai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/gateway-harness.ts';
import { RecordCollector } from '../support/record-collector.ts';

let h: Harness;
const records = new RecordCollector();
const documents = [
  'Carson City is the capital city of the American state of Nevada.',
  'Washington, D.C. is the capital of the United States.',
  'Capital punishment has existed in the United States since before it was a country.',
];

beforeAll(async () => {
  h = await startHarness({
    observers: [records],
    sixProtocols: true,
    extraModelsYaml:
      '  rr: { provider: cohere, model: rerank-v3.5 }\n' +
      '  rr-bedrock: { provider: bedrock, model: cohere.rerank-v3-5:0 }\n' +
      '  rr-claude: { provider: anthropic, model: claude-sonnet-4-5, operations: [rerank], operation_prices: { rerank: { per_thousand_requests: 2 } } }\n',
    extraYaml: 'db_path: ./gateway.db\ngovernance: on\n',
  });
});
afterAll(() => h.close());
beforeEach(() => {
  h.upstream.reset();
  records.clear();
});

async function budgetedKey(): Promise<{ id: string; secret: string }> {
  const res = await fetch(`${h.adminUrl}/api/v1/admin/keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ budget_cents: 1000 }),
  });
  return (await res.json()) as { id: string; secret: string };
}
const spentBy = (id: string) => h.gateway.governance!.listKeys().find((k) => k.id === id)!.spentMicrocents;
async function theRecord() {
  await records.atLeast(1);
  return records.records[records.records.length - 1]!;
}

describe('rerank to a Cohere lane', () => {
  it("v2: forwarded with the model rewritten; one search charged at the catalog's 2 USD per thousand", async () => {
    const key = await budgetedKey();
    const cohere = new CohereClientV2({ token: key.secret, environment: h.url });
    const answer = await cohere.rerank({ model: 'rr', query: 'What is the capital of the United States?', documents, topN: 2 });
    expect(answer.results).toHaveLength(2);
    expect(answer.results[0]!.index).toBe(1);
    expect(answer.meta?.billedUnits?.searchUnits).toBe(1);
    const sent = h.lastRequest();
    expect(sent.path).toBe('/v2/rerank');
    expect(sent.json).toMatchObject({ model: 'rerank-v3.5', query: 'What is the capital of the United States?', documents, top_n: 2 });
    // 1 search × 2 USD / 1000 = 0.002 USD = 200,000 µ¢.
    expect(spentBy(key.id)).toBe(200_000n);
    expect(await theRecord()).toMatchObject({ operation: 'rerank', ingress: 'cohere', egress: 'cohere', model: 'rr', status: 200, costMicrocents: 200_000n });
  });

  it("v1 (the Jina/Cohere v1 shape): to the lane's /v1/rerank as sent", async () => {
    const key = await budgetedKey();
    const cohere = new CohereClient({ token: key.secret, environment: h.url });
    const answer = await cohere.rerank({ model: 'rr', query: 'capital of the United States', documents, returnDocuments: true });
    expect(answer.results.length).toBeGreaterThan(0);
    expect(h.lastRequest().path).toBe('/v1/rerank');
    expect(h.lastRequest().json).toMatchObject({ model: 'rerank-v3.5', return_documents: true });
  });

  it("bad input: 400 in Cohere's shape naming the field, nothing upstream", async () => {
    const key = await budgetedKey();
    const cohere = new CohereClientV2({ token: key.secret, environment: h.url });
    const bad = await cohere.rerank({ model: 'rr', query: 'q', documents: [] }).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(CohereError);
    expect((bad as CohereError).statusCode).toBe(400);
    expect(JSON.stringify((bad as CohereError).body)).toMatch(/documents/);
    expect(h.upstream.requests).toHaveLength(0);
  });
});

describe('rerank to other lanes', () => {
  it("a Bedrock lane hosting Cohere Rerank: InvokeModel, the answer back in Cohere's shape", async () => {
    const key = await budgetedKey();
    // Bedrock's Cohere Rerank answer (AWS Bedrock user guide, "Cohere Rerank" model parameters).
    h.upstream.enqueue({
      json: {
        id: 'e8d8d6cc-4b8e-4b53-9ec8-1b4d7d8c6c2a',
        results: [
          { index: 1, relevance_score: 0.9 },
          { index: 0, relevance_score: 0.2 },
        ],
      },
    });
    const cohere = new CohereClientV2({ token: key.secret, environment: h.url });
    const answer = await cohere.rerank({ model: 'rr-bedrock', query: 'capital of the United States', documents, topN: 2 });
    expect(answer.results.map((r) => [r.index, r.relevanceScore])).toEqual([
      [1, 0.9],
      [0, 0.2],
    ]);
    const sent = h.lastRequest();
    expect(sent.path).toBe('/model/cohere.rerank-v3-5%3A0/invoke');
    expect(sent.json).toEqual({ query: 'capital of the United States', documents, top_n: 2, api_version: 2 });
    expect(String(sent.headers.authorization)).toMatch(/^AWS4-HMAC-SHA256 /);
    expect(spentBy(key.id)).toBe(200_000n);
    expect(await theRecord()).toMatchObject({ operation: 'rerank', egress: 'bedrock', status: 200 });
  });

  it('an Anthropic lane: 400 naming the operation', async () => {
    const key = await budgetedKey();
    const cohere = new CohereClientV2({ token: key.secret, environment: h.url });
    const refused = await cohere.rerank({ model: 'rr-claude', query: 'q', documents }).catch((e: unknown) => e);
    expect((refused as CohereError).statusCode).toBe(400);
    expect(JSON.stringify((refused as CohereError).body)).toMatch(/the anthropic protocol has no rerank operation/);
    const chat = await cohere.rerank({ model: 'gpt', query: 'q', documents }).catch((e: unknown) => e);
    expect(JSON.stringify((chat as CohereError).body)).toMatch(/does not serve rerank/);
    expect(h.upstream.requests).toHaveLength(0);
  });
});
