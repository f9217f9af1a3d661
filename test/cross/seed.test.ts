import { describe, expect, it } from 'vitest';
import type { ChatResponse, ProtocolId } from '../../server/ir/index.ts';
import { cohereAt, geminiAt } from '../support/sdk-at.ts';
import { upstreamJson } from '../support/six-lane-harness.ts';
import { useSixLaneHarness } from '../support/six-lane-suite.ts';

const ANSWER: ChatResponse = {
  id: 'r1',
  model: 'upstream',
  content: [{ type: 'text', text: 'ok' }],
  finish: { reason: 'stop', raw: null },
  usage: { inputTokens: 3, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 },
};

const lanes = useSixLaneHarness();

const { sent } = lanes;

async function openaiWithSeed(lane: ProtocolId): Promise<string | null> {
  lanes.harness.upstream.enqueue(upstreamJson(lane, ANSWER));
  const { response } = await lanes.openai.chat.completions.create({ model: `m-${lane}`, seed: 42, messages: [{ role: 'user', content: 'hi' }] }).withResponse();
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
    const gemini = geminiAt(lanes.harness.url);
    lanes.harness.upstream.enqueue(upstreamJson('openai', ANSWER));
    const out = await gemini.models.generateContent({ model: 'm-openai', contents: 'hi', config: { seed: 7 } });
    expect(out.text).toBe('ok');
    expect(sent().seed).toBe(7);
  });

  it('cohere → gemini: generationConfig.seed', async () => {
    const cohere = cohereAt(lanes.harness.url);
    lanes.harness.upstream.enqueue(upstreamJson('gemini', ANSWER));
    await cohere.chat({ model: 'm-gemini', seed: 9, messages: [{ role: 'user', content: 'hi' }] });
    expect((sent().generationConfig as Record<string, unknown>).seed).toBe(9);
  });
});
