// OpenAI's moderations, image generation and speech through the gateway with the official SDK:
// forwarded within the protocol with only the model rewritten, speech audio relayed as it arrives
// (read incrementally), each charged to a budgeted key at its own price exactly, the operation in
// the request record and in /metrics, and the refusals (an Anthropic lane asked for images, a model
// without the operation) in OpenAI's shape.
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { startHarness, type Harness } from '../support/gateway-harness.ts';
import { SPEECH_CHUNK_BYTES, SPEECH_CHUNKS, SPEECH_DELAY_MS, speechChunk, TINY_PNG_B64 } from '../support/media-replies.ts';
import { RecordCollector } from '../support/record-collector.ts';

let h: Harness;
const records = new RecordCollector();

beforeAll(async () => {
  h = await startHarness({
    observers: [records],
    extraModelsYaml:
      '  moderation: { provider: openai, model: omni-moderation-latest, operations: [moderations], operation_prices: { moderations: { input: 0.5 } } }\n' +
      '  image: { provider: openai, model: gpt-image-1, operations: [images], operation_prices: { images: { per_image: 0.04 } } }\n' +
      '  dalle: { provider: openai, model: dall-e-3 }\n' +
      '  speech: { provider: openai, model: gpt-4o-mini-tts, operations: [audio], operation_prices: { audio: { per_million_characters: 15 } } }\n' +
      '  speech-b: { provider: openai, model: tts-1 }\n' +
      '  claude-images: { provider: anthropic, model: claude-sonnet-4-5, operations: [images], operation_prices: { images: { per_image: 0.04 } } }\n',
    extraYaml:
      'db_path: ./gateway.db\ngovernance: on\nmetrics: { enabled: true }\npools:\n  voices: { members: [ { model: speech, weight: 1000 }, { model: speech-b, weight: 1 } ] }\n',
  });
});
afterAll(() => h.close());
beforeEach(() => {
  h.upstream.reset();
  records.clear();
});

async function budgetedKey(): Promise<{ id: string; client: OpenAI }> {
  const res = await fetch(`${h.adminUrl}/api/v1/admin/keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ budget_cents: 1000 }),
  });
  expect(res.status).toBe(201);
  const key = (await res.json()) as { id: string; secret: string };
  return { id: key.id, client: new OpenAI({ apiKey: key.secret, baseURL: `${h.url}/v1`, maxRetries: 0 }) };
}
const spentBy = (id: string) => h.gateway.governance!.listKeys().find((k) => k.id === id)!.spentMicrocents;
async function theRecord() {
  await records.atLeast(1);
  expect(records.records).toHaveLength(1);
  return records.records[0]!;
}

describe('moderations', () => {
  it("the SDK's moderations.create: bytes forwarded with the model rewritten, the answer as the upstream sent it, charged per estimated token", async () => {
    const { id, client } = await budgetedKey();
    const answer = await client.moderations.create({ model: 'moderation', input: ['I will kill the process', 'hello'] });
    expect(answer.results.map((r) => r.flagged)).toEqual([true, false]);
    expect(answer.results[0]!.categories.violence).toBe(true);
    const sent = h.lastRequest();
    expect(sent.path).toBe('/v1/moderations');
    expect(sent.json).toEqual({ model: 'omni-moderation-latest', input: ['I will kill the process', 'hello'] });
    // The answer reports no usage: tokens are the client's request bytes / 4 (rounded up; its model
    // name is 12 bytes shorter than the upstream's), at 0.5 USD per million = 50 µ¢ each.
    const tokens = Math.ceil((sent.rawBody.length - 12) / 4);
    expect(spentBy(id)).toBe(BigInt(tokens * 50));
    expect(await theRecord()).toMatchObject({
      operation: 'moderations',
      model: 'moderation',
      lane: 'moderation',
      status: 200,
      costMicrocents: BigInt(tokens * 50),
      keyId: id,
    });
  });
});

describe('images', () => {
  it('images.generate with n=3, b64_json: three images charged at the per-image price exactly', async () => {
    const { id, client } = await budgetedKey();
    const answer = await client.images.generate({ model: 'image', prompt: 'A cute baby sea otter', n: 3, response_format: 'b64_json', size: '1024x1024' });
    expect(answer.data).toHaveLength(3);
    expect(answer.data![0]!.b64_json).toBe(TINY_PNG_B64);
    expect(h.lastRequest().json).toMatchObject({ model: 'gpt-image-1', n: 3, size: '1024x1024' });
    // 3 × 0.04 USD = 0.12 USD = 12,000,000 µ¢.
    expect(spentBy(id)).toBe(12_000_000n);
    expect(await theRecord()).toMatchObject({ operation: 'images', costMicrocents: 12_000_000n });
  });

  it('the price of the size and quality asked (per_image_by_size), else per_image', async () => {
    const { id, client } = await budgetedKey();
    await client.images.generate({ model: 'dalle', prompt: 'otter', size: '1792x1024', quality: 'hd', n: 2 });
    // 2 × hd/1792x1024 at 0.12 USD = 0.24 USD.
    expect(spentBy(id)).toBe(24_000_000n);
    await client.images.generate({ model: 'dalle', prompt: 'otter', size: '1024x1792' });
    expect(spentBy(id)).toBe(24_000_000n + 8_000_000n); // the size's own price, 0.08
    await client.images.generate({ model: 'dalle', prompt: 'otter', size: '512x512' });
    expect(spentBy(id)).toBe(32_000_000n + 4_000_000n); // unlisted: per_image, 0.04
  });

  it('url answers pass through; n out of range is a 400 naming n before anything goes upstream', async () => {
    const { client } = await budgetedKey();
    const answer = await client.images.generate({ model: 'image', prompt: 'otter' });
    expect(answer.data![0]!.url).toMatch(/^https:\/\//);
    h.upstream.reset();
    const bad = await client.images.generate({ model: 'image', prompt: 'otter', n: 11 }).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(OpenAI.BadRequestError);
    expect((bad as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('n');
    expect(h.upstream.requests).toHaveLength(0);
  });

  it("images on an Anthropic lane: 400 naming the operation; a chat model asked for images: the framework's refusal", async () => {
    const { client } = await budgetedKey();
    const anthropic = await client.images.generate({ model: 'claude-images', prompt: 'otter' }).catch((e: unknown) => e);
    expect(anthropic).toBeInstanceOf(OpenAI.BadRequestError);
    expect((anthropic as Error).message).toMatch(/the anthropic protocol has no images operation/);
    expect((anthropic as InstanceType<typeof OpenAI.BadRequestError>).code).toBe('operation_not_supported');
    const chat = await client.images.generate({ model: 'gpt', prompt: 'otter' }).catch((e: unknown) => e);
    expect(chat).toBeInstanceOf(OpenAI.BadRequestError);
    expect((chat as Error).message).toMatch(/does not serve images/);
    expect(h.upstream.requests).toHaveLength(0);
  });
});

describe('speech', () => {
  it('audio.speech.create: the audio arrives chunk by chunk as the upstream sends it, charged per input character', async () => {
    const { id, client } = await budgetedKey();
    const started = performance.now();
    const response = await client.audio.speech.create({ model: 'speech', voice: 'alloy', input: 'Today is a wonderful day to build something people love!' });
    expect(response.headers.get('content-type')).toBe('audio/mpeg');
    const reader = response.body!.getReader();
    const arrivals: { bytes: number; at: number }[] = [];
    const parts: Uint8Array[] = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      arrivals.push({ bytes: value.length, at: performance.now() - started });
      parts.push(value);
    }
    const audio = Buffer.concat(parts);
    expect(audio).toEqual(Buffer.concat(Array.from({ length: SPEECH_CHUNKS }, (_, i) => speechChunk(i))));
    // Streamed, not buffered: the first bytes reached the client well before the last chunk was sent upstream.
    const firstChunkAt = arrivals[0]!.at;
    const lastAt = arrivals[arrivals.length - 1]!.at;
    expect(lastAt - firstChunkAt).toBeGreaterThanOrEqual((SPEECH_CHUNKS - 1) * SPEECH_DELAY_MS * 0.8);
    expect(audio.length).toBe(SPEECH_CHUNKS * SPEECH_CHUNK_BYTES);
    expect(h.lastRequest().json).toMatchObject({ model: 'gpt-4o-mini-tts', voice: 'alloy' });
    // 56 characters at 15 USD per million = 56 × 1500 µ¢.
    expect(spentBy(id)).toBe(56n * 1500n);
    expect(await theRecord()).toMatchObject({ operation: 'audio', costMicrocents: 84_000n, status: 200 });
  });
});

describe('upstream errors and failover', () => {
  it('an upstream refusal is relayed as OpenAI sent it, and the key is not charged', async () => {
    const { id, client } = await budgetedKey();
    h.upstream.enqueue({
      status: 400,
      json: {
        error: {
          message: 'Your request was rejected as a result of our safety system.',
          type: 'image_generation_user_error',
          param: null,
          code: 'content_policy_violation',
        },
      },
    });
    const refused = await client.images.generate({ model: 'image', prompt: 'something refused' }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OpenAI.BadRequestError);
    expect((refused as InstanceType<typeof OpenAI.BadRequestError>).code).toBe('content_policy_violation');
    expect(spentBy(id)).toBe(0n);
  });

  it('speech through a pool: a failing lane (503) is followed by the next before any audio is sent', async () => {
    const { client } = await budgetedKey();
    h.upstream.enqueue({ status: 503, json: { error: { message: 'The engine is currently overloaded', type: 'server_error', param: null, code: null } } });
    const response = await client.audio.speech.create({ model: 'voices', voice: 'alloy', input: 'hello' });
    expect(Buffer.from(await response.arrayBuffer()).length).toBe(SPEECH_CHUNKS * SPEECH_CHUNK_BYTES);
    expect(h.upstream.requests.map((r) => (r.json as { model: string }).model)).toEqual(['gpt-4o-mini-tts', 'tts-1']);
    expect(await theRecord()).toMatchObject({ operation: 'audio', pool: 'voices', lane: 'speech-b', status: 200 });
  });
});

describe('a client that leaves mid-audio', () => {
  it('the upstream call is cut and the speech is still charged in full (the upstream bills it)', async () => {
    const { id, client } = await budgetedKey();
    const response = await client.audio.speech.create({ model: 'speech', voice: 'alloy', input: 'leaving early' });
    const reader = response.body!.getReader();
    await reader.read();
    await reader.cancel();
    const record = await theRecord();
    expect(record).toMatchObject({ operation: 'audio', clientGone: true });
    expect(spentBy(id)).toBe(13n * 1500n); // 13 characters at 15 USD per million
    await vi.waitFor(() => expect(h.upstream.requests[0]!.abandoned).toBe(true), { timeout: 3000 }); // its close may trail the record
  });
});

describe('metrics', () => {
  it('gateway_requests_total carries the operation label', async () => {
    const { client } = await budgetedKey();
    await client.moderations.create({ model: 'moderation', input: 'hi' });
    const res = await fetch(`${h.url}/metrics`);
    const text = await res.text();
    expect(text).toMatch(/gateway_requests_total\{[^}]*operation="moderations"[^}]*\} [1-9]/);
  });
});
