// The test mock upstreams answer every protocol's embeddings route in its wire format: the
// scriptable mock (mock-upstream.ts) and the six-protocol server the matrix, agent and output-limit
// mocks build on; a request that is not one gets the provider's 400.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoVector } from '../../server/demo/demo-vector.ts';
import { startMockUpstream, type MockUpstream } from '../support/mock-upstream.ts';
import { startSixProtocolServer, type SixProtocolServer } from '../support/six-protocol-server.ts';

let six: SixProtocolServer;
let mock: MockUpstream;
beforeAll(async () => {
  six = await startSixProtocolServer(() => {
    throw new Error('an embeddings route must not reach the chat handler');
  });
  mock = await startMockUpstream();
});
afterAll(async () => {
  await six.close();
  await mock.close();
});

const CALLS: [string, unknown, (json: any) => unknown][] = [
  ['/v1/embeddings', { model: 'm', input: ['a'] }, (j) => j.data[0].embedding],
  ['/v1beta/models/m:embedContent', { content: { parts: [{ text: 'a' }] } }, (j) => j.embedding.values],
  ['/v1beta/models/m:batchEmbedContents', { requests: [{ model: 'models/m', content: { parts: [{ text: 'a' }] } }] }, (j) => j.embeddings[0].values],
  ['/v2/embed', { model: 'm', texts: ['a'], input_type: 'search_query' }, (j) => j.embeddings.float[0]],
  ['/v1/embed', { model: 'm', texts: ['a'] }, (j) => j.embeddings[0]],
  ['/model/amazon.titan-embed-text-v2%3A0/invoke', { inputText: 'a' }, (j) => j.embedding],
  ['/model/cohere.embed-english-v3/invoke', { texts: ['a'], input_type: 'search_query' }, (j) => j.embeddings[0]],
];

describe.each([
  ['six-protocol server', () => six.url],
  ['scriptable mock', () => mock.url],
] as const)('%s', (_, url) => {
  it.each(CALLS)('%s answers with the deterministic vector', async (path, body, vectorOf) => {
    const res = await fetch(url() + path, { method: 'POST', body: JSON.stringify(body) });
    expect(res.status).toBe(200);
    expect(vectorOf(await res.json())).toEqual(demoVector('a'));
  });

  it("a Cohere v2 request without input_type gets Cohere's 400", async () => {
    const res = await fetch(url() + '/v2/embed', { method: 'POST', body: JSON.stringify({ model: 'm', texts: ['a'] }) });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toMatch(/input_type/);
  });
});
