// The media answers OpenAI really sends (test/fixtures/real-media/SOURCES.md) relayed through the
// gateway to the official SDK unchanged, priced from what they report; the mock upstream's own
// answers carry the same members, so the other media tests exercise the real wire format.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CohereClientV2 } from 'cohere-ai';
import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/gateway-harness.ts';
import { toneWav } from '../support/wav-file.ts';

const DIR = join(import.meta.dirname, '..', 'fixtures', 'real-media');
const real = (file: string) => JSON.parse(readFileSync(join(DIR, file), 'utf8')) as Record<string, unknown>;
let h: Harness;
let keyId: string;
let secret: string;
let client: OpenAI;

beforeAll(async () => {
  h = await startHarness({
    sixProtocols: true,
    extraModelsYaml:
      '  rerank-v4.0-pro: { provider: cohere, model: rerank-v4.0-pro, operations: [rerank], operation_prices: { rerank: { per_thousand_requests: 2 } } }\n' +
      '  moderation: { provider: openai, model: omni-moderation-latest }\n' +
      '  image: { provider: openai, model: gpt-image-1 }\n' +
      '  transcribe: { provider: openai, model: gpt-4o-transcribe, operation_prices: { audio: { input: 6 } } }\n' +
      '  whisper: { provider: openai, model: whisper-1 }\n',
    extraYaml: 'db_path: ./gateway.db\ngovernance: on\n',
  });
  const res = await fetch(`${h.adminUrl}/api/v1/admin/keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ budget_cents: 10_000 }),
  });
  const key = (await res.json()) as { id: string; secret: string };
  keyId = key.id;
  secret = key.secret;
  client = new OpenAI({ apiKey: key.secret, baseURL: `${h.url}/v1`, maxRetries: 0 });
});
afterAll(() => h.close());
beforeEach(() => h.upstream.reset());
const spent = () => h.gateway.governance!.listKeys().find((k) => k.id === keyId)!.spentMicrocents;

describe('real answers through the gateway', () => {
  it('moderation: relayed as sent; the mock answers with the same members', async () => {
    const payload = real('openai-moderation.json');
    h.upstream.enqueue({ json: payload });
    expect(await client.moderations.create({ model: 'moderation', input: 'I want to kill them.' })).toEqual(payload);
    const mock = await client.moderations.create({ model: 'moderation', input: 'x' });
    expect(Object.keys(mock).sort()).toEqual(Object.keys(payload).sort());
    const realResult = (payload.results as Record<string, unknown>[])[0]!;
    for (const member of Object.keys(realResult)) expect(mock.results[0]).toHaveProperty(member);
  });

  it('images: relayed as sent, charged per image at the catalog price (gpt-image-1: 0.042 USD)', async () => {
    const payload = real('openai-images-b64.json');
    h.upstream.enqueue({ json: payload });
    const before = spent();
    expect(await client.images.generate({ model: 'image', prompt: 'A cute baby sea otter', n: 1 })).toEqual(payload);
    expect(spent() - before).toBe(4_200_000n);
    const mock = await client.images.generate({ model: 'image', prompt: 'otter', response_format: 'b64_json' });
    for (const member of Object.keys(mock)) expect(payload).toHaveProperty(member);
    expect(Object.keys(mock.data![0]!)).toEqual(Object.keys((payload.data as object[])[0]!));
  });

  it('transcription json (gpt-4o-transcribe): its token usage is what the key pays', async () => {
    const payload = real('openai-transcription-json.json');
    h.upstream.enqueue({ json: payload });
    const before = spent();
    expect(await client.audio.transcriptions.create({ model: 'transcribe', file: await toFile(toneWav(1), 'a.wav') })).toEqual(payload);
    const usage = payload.usage as { input_tokens: number; output_tokens: number };
    expect(spent() - before).toBe(BigInt((usage.input_tokens + usage.output_tokens) * 600)); // 6 USD per million tokens
  });

  it("diarized transcription: its billed seconds (usage.seconds) at whisper-1's catalog 0.0001 USD a second", async () => {
    const payload = real('openai-transcription-diarized.json');
    h.upstream.enqueue({ json: payload });
    const before = spent();
    expect(
      await client.audio.transcriptions.create({ model: 'whisper', file: await toFile(toneWav(1), 'a.wav'), response_format: 'diarized_json' as 'json' }),
    ).toEqual(payload);
    const seconds = (payload.usage as { seconds: number }).seconds;
    expect(spent() - before).toBe(BigInt(seconds) * 10_000n);
  });

  it("Cohere rerank v2 (the SDK's own wire test): request forwarded as sent, answer relayed as sent, the mock in the same shape", async () => {
    const request = real('cohere-rerank-v2-request.json');
    const payload = real('cohere-rerank-v2-response.json');
    h.upstream.enqueue({ json: payload });
    const res = await fetch(`${h.url}/v2/rerank`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify(request),
    });
    expect(await res.json()).toEqual(payload);
    expect(h.lastRequest().json).toEqual(request);
    const cohere = new CohereClientV2({ token: secret, environment: h.url });
    const answer = await cohere.rerank({ model: 'rerank-v4.0-pro', query: String(request.query), documents: request.documents as string[], topN: 3 });
    expect(answer.results).toHaveLength(3); // the mock's ranking, read by the SDK
    // The mock's own answer: the same members, to the nested ones.
    const mock = (await (
      await fetch(`${h.url}/v2/rerank`, {
        method: 'POST',
        headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
        body: JSON.stringify(request),
      })
    ).json()) as Record<string, unknown>;
    expect(Object.keys(mock).sort()).toEqual(Object.keys(payload).sort());
    expect(Object.keys((mock.results as object[])[0]!).sort()).toEqual(['index', 'relevance_score']);
    expect(mock.meta).toMatchObject({ billed_units: { search_units: 1 } });
  });
});
