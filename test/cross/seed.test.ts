// `seed` crosses between the protocols that have one (OpenAI Chat, Gemini, Cohere) and is dropped
// with a warning towards those that do not (Responses, Anthropic, Bedrock). Official SDKs as clients.
import { GoogleGenAI } from '@google/genai';
import { CohereClientV2 } from 'cohere-ai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatResponse, ProtocolId } from '../../server/ir/index.ts';
import { startSixLaneHarness, upstreamJson, type SixLaneHarness } from '../support/six-lane-harness.ts';

const ANSWER: ChatResponse = {
  id: 'r1', model: 'upstream', content: [{ type: 'text', text: 'ok' }], finish: { reason: 'stop', raw: null },
  usage: { inputTokens: 3, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 },
};

let harness: SixLaneHarness;
let openai: OpenAI;

beforeAll(async () => {
  harness = await startSixLaneHarness();
  openai = new OpenAI({ apiKey: 'k', baseURL: `${harness.url}/v1`, maxRetries: 0 });
});
afterAll(() => harness.close());

const sent = () => harness.lastRequest().json as Record<string, unknown>;

async function openaiWithSeed(lane: ProtocolId): Promise<string | null> {
  harness.upstream.enqueue(upstreamJson(lane, ANSWER));
  const { response } = await openai.chat.completions.create({ model: `m-${lane}`, seed: 42, messages: [{ role: 'user', content: 'hi' }] }).withResponse();
  return response.headers.get('x-gateway-warnings');
}

describe('seed across protocols', () => {
  it('openai → gemini: generationConfig.seed', async () => {
    expect(await openaiWithSeed('gemini')).toBeNull();
    expect((sent().generationConfig as Record<string, unknown>).seed).toBe(42);
  });

  it('openai → cohere: seed', async () => {
    expect(await openaiWithSeed('cohere')).toBeNull();
    expect(sent().seed).toBe(42);
  });

  it.each(['anthropic', 'bedrock', 'responses'] as const)('openai → %s: dropped with a warning (no seed there)', async (lane) => {
    expect(await openaiWithSeed(lane)).toContain('dropped=seed');
    expect(JSON.stringify(sent())).not.toContain('42');
  });

  it('gemini → openai: seed', async () => {
    const gemini = new GoogleGenAI({ apiKey: 'k', httpOptions: { baseUrl: harness.url } });
    harness.upstream.enqueue(upstreamJson('openai', ANSWER));
    const out = await gemini.models.generateContent({ model: 'm-openai', contents: 'hi', config: { seed: 7 } });
    expect(out.text).toBe('ok');
    expect(sent().seed).toBe(7);
  });

  it('cohere → gemini: generationConfig.seed', async () => {
    const cohere = new CohereClientV2({ token: 'k', environment: harness.url });
    harness.upstream.enqueue(upstreamJson('gemini', ANSWER));
    await cohere.chat({ model: 'm-gemini', seed: 9, messages: [{ role: 'user', content: 'hi' }] });
    expect((sent().generationConfig as Record<string, unknown>).seed).toBe(9);
  });
});
