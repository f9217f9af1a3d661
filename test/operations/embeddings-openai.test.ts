// OpenAI embeddings through the gateway, same protocol: the official SDK (which asks for base64
// by default), the bytes forwarded with only the model rewritten, the request record, a budgeted
// key charged exactly tokens × the embedding price, and the refusals in OpenAI's shape.
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { demoVector } from '../../server/demo/demo-vector.ts';
import { startHarness, UPSTREAM_OPENAI_KEY, type Harness } from '../support/gateway-harness.ts';
import { RecordCollector } from '../support/record-collector.ts';

let h: Harness;
let openai: OpenAI;
const records = new RecordCollector();

beforeAll(async () => {
  h = await startHarness({
    observers: [records],
    maxRequestBytes: 64 * 1024,
    extraModelsYaml:
      '  embed: { provider: openai, model: text-embedding-3-small, operations: [embeddings] }\n' +
      '  embed-unpriced: { provider: openai, model: emb-no-catalog-price, operations: [embeddings] }\n' +
      '  embed-priced: { provider: openai, model: emb-upstream, operations: [embeddings], operation_prices: { embeddings: { input: 0.02 } } }\n',
    extraYaml: 'db_path: ./gateway.db\ngovernance: on\n',
  });
});
afterAll(() => h.close());
beforeEach(() => {
  h.upstream.reset();
  records.clear();
});

async function key(body: Record<string, unknown> = {}): Promise<{ id: string; secret: string }> {
  const res = await fetch(`${h.adminUrl}/api/v1/admin/keys`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  expect(res.status).toBe(201);
  return (await res.json()) as { id: string; secret: string };
}
/** The one record of the test's request (it may trail the answer by a moment). */
async function lastRecord() {
  await records.atLeast(1);
  expect(records.records).toHaveLength(1);
  return records.records[0]!;
}
/**
 * An OpenAI answer of about 330 KB (16 vectors of 1,024 numbers), as an upstream writes it in
 * pieces; `note` (a key echoed, say) goes in a string that one of the cuts splits.
 */
function largeAnswer(note: string): { pieces: Buffer[]; bytes: Buffer } {
  const data = Array.from({ length: 16 }, (_, index) => ({
    object: 'embedding',
    index,
    embedding: Array.from({ length: 1024 }, (_, i) => Math.cos(index + i) / 3),
  }));
  const head = `{"object":"list","note":"echo ${note}",`;
  const bytes = Buffer.from(`${head}"data":${JSON.stringify(data)},"model":"text-embedding-3-small","usage":{"prompt_tokens":4321,"total_tokens":4321}}`);
  const cuts = [head.length - 10, 70_000, 150_000, 300_000, bytes.length];
  return { pieces: cuts.map((end, i) => bytes.subarray(i === 0 ? 0 : cuts[i - 1], end)), bytes };
}
const client = (secret: string) => new OpenAI({ apiKey: secret, baseURL: `${h.url}/v1`, maxRetries: 0 });

describe('OpenAI embeddings, same protocol', () => {
  beforeAll(async () => {
    openai = client((await key()).secret);
  });

  it("the SDK default (base64 on the wire) decodes to the upstream's vectors; the body went up as sent, model rewritten", async () => {
    const answer = await openai.embeddings.create({ model: 'embed', input: ['alpha beta', 'gamma'] });
    expect(answer.data.map((d) => d.embedding)).toEqual([demoVector('alpha beta'), demoVector('gamma')]);
    expect(answer.usage).toEqual({ prompt_tokens: 3, total_tokens: 3 });
    const sent = h.lastRequest();
    expect(sent.path).toBe('/v1/embeddings');
    expect(sent.json).toMatchObject({ model: 'text-embedding-3-small', input: ['alpha beta', 'gamma'], encoding_format: 'base64' });
    const record = await lastRecord();
    // The catalog's list price of text-embedding-3-small: 0.02 USD per million tokens.
    expect(record).toMatchObject({
      operation: 'embeddings',
      ingress: 'openai',
      egress: 'openai',
      model: 'embed',
      lane: 'embed',
      status: 200,
      usage: { inputTokens: 3, outputTokens: 0 },
      costMicrocents: 6n,
    });
  });

  it("the same protocol forwards the client's bytes as they are, only the model rewritten; the answer's bytes come back as sent", async () => {
    const { secret } = await key();
    const raw = '{ "input" : ["a  b"],\n  "model":"embed", "x-unknown": {"kept": true}, "encoding_format": "float" }';
    const res = await fetch(`${h.url}/v1/embeddings`, { method: 'POST', headers: { authorization: `Bearer ${secret}` }, body: raw });
    expect(res.status).toBe(200);
    expect(h.lastRequest().rawBody.toString('utf8')).toBe(raw.replace('"embed"', '"text-embedding-3-small"'));
    const answer = await res.text();
    expect(JSON.parse(answer)).toMatchObject({ model: 'text-embedding-3-small', data: [{ embedding: demoVector('a  b') }] }); // the upstream's own answer
  });

  it('a large answer read in pieces reaches the client as the upstream sent it, its length exact and its usage charged', async () => {
    const { secret } = await key();
    const { pieces, bytes } = largeAnswer('');
    h.upstream.enqueue({ headers: { 'content-type': 'application/json' }, events: pieces, delayMs: 5 });
    const res = await fetch(`${h.url}/v1/embeddings`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}` },
      body: '{"model":"embed","input":["a"]}',
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBe(String(bytes.length));
    expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).toBe(true);
    expect((await lastRecord()).usage).toMatchObject({ inputTokens: 4321 });
  });

  it("the upstream's key in a large answer read in pieces, across a cut, never reaches the client", async () => {
    const { secret } = await key();
    const { pieces, bytes } = largeAnswer(UPSTREAM_OPENAI_KEY);
    h.upstream.enqueue({ headers: { 'content-type': 'application/json' }, events: pieces, delayMs: 5 });
    const res = await fetch(`${h.url}/v1/embeddings`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}` },
      body: '{"model":"embed","input":["a"]}',
    });
    const text = await res.text();
    expect(text).not.toContain(UPSTREAM_OPENAI_KEY);
    expect(text).toBe(bytes.toString().replace(UPSTREAM_OPENAI_KEY, '[redacted]'));
    expect(res.headers.get('content-length')).toBe(String(Buffer.byteLength(text)));
  });

  it('float encoding and dimensions pass through', async () => {
    const answer = await openai.embeddings.create({ model: 'embed', input: 'one', encoding_format: 'float', dimensions: 4 });
    expect(answer.data[0]!.embedding).toEqual(demoVector('one', 4));
    expect(h.lastRequest().json).toMatchObject({ dimensions: 4, encoding_format: 'float' });
  });

  it('a chat model asked for embeddings, and an embedding model asked for chat: 400 naming the operation', async () => {
    const wrong = await openai.embeddings.create({ model: 'gpt', input: 'x' }).catch((e: unknown) => e);
    expect(wrong).toBeInstanceOf(OpenAI.BadRequestError);
    expect((wrong as InstanceType<typeof OpenAI.BadRequestError>).message).toMatch(/does not serve embeddings/);
    expect((wrong as InstanceType<typeof OpenAI.BadRequestError>).code).toBe('operation_not_supported');
    const chat = await openai.chat.completions.create({ model: 'embed', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(chat).toBeInstanceOf(OpenAI.BadRequestError);
    expect((chat as Error).message).toMatch(/does not serve chat/);
    expect(h.upstream.requests).toHaveLength(0);
  });

  it("bad input: 400 in OpenAI's shape naming the field; unknown model 404; oversize 413", async () => {
    const empty = await openai.embeddings.create({ model: 'embed', input: [] }).catch((e: unknown) => e);
    expect(empty).toBeInstanceOf(OpenAI.BadRequestError);
    expect((empty as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('input');
    const format = await openai.embeddings.create({ model: 'embed', input: 'x', encoding_format: 'int8' as 'float' }).catch((e: unknown) => e);
    expect((format as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('encoding_format');
    const unknown = await openai.embeddings.create({ model: 'nope', input: 'x' }).catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(OpenAI.NotFoundError);
    const big = await openai.embeddings.create({ model: 'embed', input: 'x'.repeat(70 * 1024) }).catch((e: unknown) => e);
    expect((big as InstanceType<typeof OpenAI.APIError>).status).toBe(413);
    const geminiBig = await fetch(`${h.url}/v1beta/models/embed:embedContent`, {
      method: 'POST',
      headers: { 'x-goog-api-key': (await key()).secret },
      body: JSON.stringify({ content: { parts: [{ text: 'x'.repeat(70 * 1024) }] } }),
    });
    expect(geminiBig.status).toBe(413);
    expect(((await geminiBig.json()) as { error: { status: string } }).error.status).toBeTypeOf('string'); // Gemini's error shape
    expect(h.upstream.requests).toHaveLength(0);
  });
});

describe('governance', () => {
  it('a budgeted key is charged exactly tokens × the embedding price', async () => {
    const budgeted = await key({ budget_cents: 100 });
    const answer = await client(budgeted.secret).embeddings.create({ model: 'embed-priced', input: ['one two three four', 'five six'] });
    expect(answer.usage.prompt_tokens).toBe(6);
    const spent = h.gateway.governance!.listKeys().find((k) => k.id === budgeted.id)!.spentMicrocents;
    // 6 tokens at 0.02 USD per million = 6 × 2 µ¢ (1 USD = 1e8 µ¢).
    expect(spent).toBe(12n);
    expect(await lastRecord()).toMatchObject({ operation: 'embeddings', costMicrocents: 12n, keyId: budgeted.id });
  });

  it('a budgeted key asking a model without an embedding price is refused before anything goes upstream', async () => {
    const budgeted = await key({ budget_cents: 100 });
    const refused = await client(budgeted.secret)
      .embeddings.create({ model: 'embed-unpriced', input: 'x' })
      .catch((e: unknown) => e);
    expect((refused as InstanceType<typeof OpenAI.APIError>).status).toBe(400);
    expect((refused as Error).message).toMatch(/no price/);
    expect(h.upstream.requests).toHaveLength(0);
  });

  it("no key: 401 in OpenAI's shape", async () => {
    const refused = await client('gwk_wrong')
      .embeddings.create({ model: 'embed', input: 'x' })
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OpenAI.AuthenticationError);
  });
});
