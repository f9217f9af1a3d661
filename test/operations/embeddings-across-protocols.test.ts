// Embeddings in every pair of the four protocols that have them (OpenAI, Gemini, Cohere, Bedrock
// with Titan and Cohere bodies), each client the official SDK, each upstream the mock speaking
// the provider's real embeddings wire format: the same vectors in every client's encoding, usage
// in each client's convention (estimated, and said so, where the upstream reports none), batches
// split to each upstream's limit and merged back in order.
import { InvokeModelCommand } from '@aws-sdk/client-bedrock-runtime';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { demoTokens, demoVector } from '../../server/demo/demo-vector.ts';
import { startHarness, type Harness } from '../support/gateway-harness.ts';
import { bedrockAt, cohereAt, geminiAt, openaiAt } from '../support/sdk-at.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    sixProtocols: true,
    extraModelsYaml:
      [
        '  e-openai: { provider: openai, model: text-embedding-3-small }',
        '  e-gemini: { provider: gemini, model: gemini-embedding-001 }',
        '  e-cohere: { provider: cohere, model: embed-v4.0, embedding_input_type: search_query }',
        '  e-titan: { provider: bedrock, model: amazon.titan-embed-text-v2:0 }',
        '  e-bedrock-cohere: { provider: bedrock, model: cohere.embed-english-v3 }',
        '  e-anthropic: { provider: anthropic, model: claude-sonnet-4-5, operations: [chat, embeddings] }',
      ].join('\n') + '\n',
  });
});
afterAll(() => h.close());
beforeEach(() => h.upstream.reset());

const LANES = ['e-openai', 'e-gemini', 'e-cohere', 'e-titan', 'e-bedrock-cohere'] as const;
/** Upstreams that report no input tokens: the client's count is the gateway's estimate. */
const REPORTS_NO_USAGE = new Set(['e-gemini']);
const TEXTS = ['the quick brown fox', 'jumps over', 'the lazy dog'];
const estimate = (texts: string[]) => Math.max(1, Math.ceil(texts.reduce((n, t) => n + Buffer.byteLength(t), 0) / 4));
const expectedTokens = (lane: string, texts = TEXTS) => (REPORTS_NO_USAGE.has(lane) ? estimate(texts) : texts.reduce((n, t) => n + demoTokens(t), 0));

describe.each(LANES)('lane %s', (lane) => {
  it("openai SDK (base64 by default): the vectors and usage in OpenAI's shape", async () => {
    const { data, response } = await openaiAt(h.url).embeddings.create({ model: lane, input: TEXTS }).withResponse();
    expect(data.data.map((d) => d.embedding)).toEqual(TEXTS.map((t) => demoVector(t)));
    expect(data.data.map((d) => d.index)).toEqual([0, 1, 2]);
    expect(data.usage.prompt_tokens).toBe(expectedTokens(lane));
    expect(response.headers.get('x-gateway-warnings') ?? '').toContain(REPORTS_NO_USAGE.has(lane) ? 'estimated=usage' : '');
    if (!REPORTS_NO_USAGE.has(lane)) expect(response.headers.get('x-gateway-warnings') ?? '').not.toContain('estimated');
  });

  it('openai SDK float with dimensions', async () => {
    if (lane === 'e-bedrock-cohere') return; // Cohere v3 on Bedrock has no output dimension
    const answer = await openaiAt(h.url).embeddings.create({ model: lane, input: 'one', encoding_format: 'float', dimensions: 4 });
    expect(answer.data[0]!.embedding).toEqual(demoVector('one', 4));
  });

  it('@google/genai embedContent (batchEmbedContents on the wire)', async () => {
    const answer = await geminiAt(h.url).models.embedContent({ model: lane, contents: TEXTS });
    expect(answer.embeddings?.map((e) => e.values)).toEqual(TEXTS.map((t) => demoVector(t)));
  });

  it('Gemini :embedContent, one content', async () => {
    const res = await fetch(`${h.url}/v1beta/models/${lane}:embedContent`, {
      method: 'POST',
      headers: { 'x-goog-api-key': 'k' },
      body: JSON.stringify({ content: { parts: [{ text: 'hello world' }] }, taskType: 'RETRIEVAL_QUERY' }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ embedding: { values: demoVector('hello world') } });
  });

  it('cohere-ai embed v2, float and base64', async () => {
    const answer = await cohereAt(h.url).embed({ model: lane, texts: TEXTS, inputType: 'search_document', embeddingTypes: ['float', 'base64'] });
    expect(answer.embeddings.float).toEqual(TEXTS.map((t) => demoVector(t)));
    const base64 = answer.embeddings.base64!.map((b) => Array.from(new Float32Array(new Uint8Array(Buffer.from(b, 'base64')).buffer)));
    expect(base64).toEqual(TEXTS.map((t) => demoVector(t)));
    expect(answer.meta?.billedUnits?.inputTokens).toBe(expectedTokens(lane));
  });

  it('Bedrock InvokeModel with a Titan body', async () => {
    const out = await bedrockAt(h.url).send(
      new InvokeModelCommand({ modelId: lane, contentType: 'application/json', body: JSON.stringify({ inputText: 'hello world' }) }),
    );
    const body = JSON.parse(Buffer.from(out.body).toString('utf8')) as { embedding: number[]; inputTextTokenCount: number };
    expect(body.embedding).toEqual(demoVector('hello world'));
    expect(body.inputTextTokenCount).toBe(expectedTokens(lane, ['hello world']));
  });

  it('Bedrock InvokeModel with a Cohere body', async () => {
    const out = await bedrockAt(h.url).send(
      new InvokeModelCommand({ modelId: lane, contentType: 'application/json', body: JSON.stringify({ texts: TEXTS, input_type: 'search_document' }) }),
    );
    const body = JSON.parse(Buffer.from(out.body).toString('utf8')) as { embeddings: number[][]; response_type: string };
    expect(body).toMatchObject({ response_type: 'embeddings_floats', embeddings: TEXTS.map((t) => demoVector(t)) });
  });
});

describe('batches and settings', () => {
  it('250 texts to a Gemini lane: three calls of at most 100, merged in order', async () => {
    const texts = Array.from({ length: 250 }, (_, i) => `text number ${i}`);
    const answer = await openaiAt(h.url).embeddings.create({ model: 'e-gemini', input: texts, encoding_format: 'float' });
    expect(answer.data.map((d) => d.embedding)).toEqual(texts.map((t) => demoVector(t)));
    expect(h.upstream.requests.map((r) => (r.json as { requests: unknown[] }).requests.length).sort()).toEqual([100, 100, 50]);
  });

  it('Titan takes one text a call: three texts are three calls', async () => {
    await openaiAt(h.url).embeddings.create({ model: 'e-titan', input: TEXTS });
    expect(h.upstream.requests.map((r) => (r.json as { inputText: string }).inputText).sort()).toEqual([...TEXTS].sort());
    expect(h.upstream.requests.every((r) => r.path === '/model/amazon.titan-embed-text-v2%3A0/invoke')).toBe(true);
  });

  it("a Cohere lane gets the operator's input_type when the client's protocol has none; the client's own otherwise", async () => {
    await openaiAt(h.url).embeddings.create({ model: 'e-cohere', input: 'x' });
    expect(h.lastRequest().json).toMatchObject({ input_type: 'search_query', texts: ['x'], embedding_types: ['float'] });
    await fetch(`${h.url}/v1beta/models/e-cohere:embedContent`, {
      method: 'POST',
      body: JSON.stringify({ content: { parts: [{ text: 'x' }] }, taskType: 'CLUSTERING' }),
    });
    expect(h.lastRequest().json).toMatchObject({ input_type: 'clustering' });
    await openaiAt(h.url).embeddings.create({ model: 'e-bedrock-cohere', input: 'x' });
    expect(h.lastRequest().json).toMatchObject({ input_type: 'search_document' }); // the default
  });

  it('dimensions travel as each protocol names them', async () => {
    await openaiAt(h.url).embeddings.create({ model: 'e-gemini', input: 'x', dimensions: 16 });
    expect(h.lastRequest().json).toMatchObject({ requests: [{ outputDimensionality: 16, model: 'models/gemini-embedding-001' }] });
    await openaiAt(h.url).embeddings.create({ model: 'e-cohere', input: 'x', dimensions: 16 });
    expect(h.lastRequest().json).toMatchObject({ output_dimension: 16 });
    await openaiAt(h.url).embeddings.create({ model: 'e-titan', input: 'x', dimensions: 16 });
    expect(h.lastRequest().json).toMatchObject({ dimensions: 16 });
  });
});

describe('refusals', () => {
  it('embeddings on an Anthropic lane: 400 naming the operation, nothing sent', async () => {
    const refused = await openaiAt(h.url)
      .embeddings.create({ model: 'e-anthropic', input: 'x' })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect((refused as Error).message).toMatch(/anthropic protocol has no embeddings/);
    expect(h.upstream.requests).toHaveLength(0);
  });

  it('token-id inputs to another protocol, quantized Cohere types to another protocol: 400 naming the field', async () => {
    const tokens = await openaiAt(h.url)
      .embeddings.create({ model: 'e-cohere', input: [[1, 2, 3]] })
      .catch((e: unknown) => e);
    expect((tokens as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('input');
    const int8 = await cohereAt(h.url)
      .embed({ model: 'e-openai', texts: ['x'], inputType: 'search_query', embeddingTypes: ['int8'] })
      .catch((e: unknown) => e);
    expect((int8 as { statusCode: number }).statusCode).toBe(400);
    expect(JSON.stringify((int8 as { body: unknown }).body)).toContain('embedding_types');
    expect(h.upstream.requests).toHaveLength(0);
  });

  it("a token count asked of an embedding model: 400 in Anthropic's shape naming the operation", async () => {
    const res = await fetch(`${h.url}/v1/messages/count_tokens`, {
      method: 'POST',
      headers: { 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'e-openai', messages: [{ role: 'user', content: 'x' }] }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      type: 'error',
      error: { type: 'invalid_request_error', message: expect.stringMatching(/does not serve count_tokens/) },
    });
    expect(h.upstream.requests).toHaveLength(0);
  });

  it("bad input in each client's shape", async () => {
    const gemini = await fetch(`${h.url}/v1beta/models/e-openai:batchEmbedContents`, { method: 'POST', body: JSON.stringify({ requests: [] }) });
    expect(gemini.status).toBe(400);
    expect(await gemini.json()).toMatchObject({ error: { code: 400, status: 'INVALID_ARGUMENT' } });
    const cohere = await fetch(`${h.url}/v2/embed`, { method: 'POST', body: JSON.stringify({ model: 'e-openai', texts: [], input_type: 'search_query' }) });
    expect(cohere.status).toBe(400);
    expect(((await cohere.json()) as { message: string }).message).toMatch(/texts/);
    const bedrock = await bedrockAt(h.url)
      .send(new InvokeModelCommand({ modelId: 'e-openai', contentType: 'application/json', body: JSON.stringify({ prompt: 'x' }) }))
      .catch((e: unknown) => e);
    expect((bedrock as Error).name).toBe('ValidationException');
  });
});
