import { describe, expect, it } from 'vitest';
import type { ChatResponse } from '../../server/ir/index.ts';
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

const lanes = useSixLaneHarness({ upstreamModels: { openai: 'gpt-5-mini', responses: 'o4-mini' } });

const { sent } = lanes;

describe('sampling towards OpenAI reasoning models', () => {
  it.each(['openai', 'responses'] as const)('cohere → %s: temperature and top_p left out, each a warning', async (lane) => {
    const cohere = cohereAt(lanes.harness.url);
    lanes.harness.upstream.enqueue(upstreamJson(lane, ANSWER));
    const { data, rawResponse } = await cohere
      .chat({ model: `m-${lane}`, temperature: 0.2, p: 0.9, messages: [{ role: 'user', content: 'hi' }] })
      .withRawResponse();
    expect(data.message.content).toEqual([expect.objectContaining({ type: 'text', text: 'ok' })]);
    expect(sent()).not.toHaveProperty('temperature');
    expect(sent()).not.toHaveProperty('top_p');
    const warnings = rawResponse.headers.get('x-gateway-warnings') ?? '';
    expect(warnings).toContain('temperature');
    expect(warnings).toContain('top_p');
  });

  it.each(['openai', 'responses'] as const)("gemini → %s: Gemini CLI's temperature 0 is left out (topP 1 is the default)", async (lane) => {
    const gemini = geminiAt(lanes.harness.url);
    lanes.harness.upstream.enqueue(upstreamJson(lane, ANSWER));
    const out = await gemini.models.generateContent({ model: `m-${lane}`, contents: 'hi', config: { temperature: 0, topP: 1 } });
    expect(out.text).toBe('ok');
    expect(sent()).not.toHaveProperty('temperature');
    expect(sent()).not.toHaveProperty('top_p');
    expect(out.sdkHttpResponse?.headers?.['x-gateway-warnings']).toContain('temperature');
  });

  it("openai → openai (same protocol): the client's temperature is passed on untouched", async () => {
    lanes.harness.upstream.enqueue(upstreamJson('openai', ANSWER));
    await lanes.openai.chat.completions.create({ model: 'm-openai', temperature: 0, top_p: 0.5, messages: [{ role: 'user', content: 'hi' }] });
    expect(sent()).toMatchObject({ model: 'gpt-5-mini', temperature: 0, top_p: 0.5 });
  });

  it("responses → responses (same protocol): the client's temperature is passed on untouched", async () => {
    lanes.harness.upstream.enqueue(upstreamJson('responses', ANSWER));
    await lanes.openai.responses.create({ model: 'm-responses', temperature: 0.3, input: 'hi' });
    expect(sent()).toMatchObject({ model: 'o4-mini', temperature: 0.3 });
  });
});
