// An Anthropic lane needs max_tokens. When the client sent no maximum, the lane asks for the
// upstream model's real output ceiling from the catalog, not a small fixed number that would cut
// long answers short; a model the catalog does not know gets the documented fallback, 4096.
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/gateway-harness.ts';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({
    extraModelsYaml: [
      '  opus-46: { provider: anthropic, model: claude-opus-4-6 }',
      '  opus-41: { provider: anthropic, model: claude-opus-4-1 }',
      '  unknown-claude: { provider: anthropic, model: claude-from-the-future }',
      '',
    ].join('\n'),
  });
});
afterAll(() => h.close());

async function maxTokensSent(model: string): Promise<unknown> {
  const openai = new OpenAI({ apiKey: 'k', baseURL: `${h.url}/v1`, maxRetries: 0 });
  await openai.chat.completions.create({ model, messages: [{ role: 'user', content: 'Write a long essay.' }] });
  return (h.lastRequest().json as { max_tokens?: unknown }).max_tokens;
}

describe('max_tokens for an Anthropic lane when the client sent none', () => {
  it.each([
    ['claude-default-tokens', 64000], // claude-haiku-4-5
    ['opus-46', 128000],
    ['opus-41', 32000],
    ['unknown-claude', 4096],
    ['claude', 2048], // the model's own max_tokens in config.yaml wins
  ])('%s → %d', async (model, expected) => {
    expect(await maxTokensSent(model)).toBe(expected);
  });

  it('a client maximum is sent as it is', async () => {
    const openai = new OpenAI({ apiKey: 'k', baseURL: `${h.url}/v1`, maxRetries: 0 });
    await openai.chat.completions.create({ model: 'opus-46', max_completion_tokens: 300, messages: [{ role: 'user', content: 'hi' }] });
    expect((h.lastRequest().json as { max_tokens?: unknown }).max_tokens).toBe(300);
  });

  it('a Gemini client without maxOutputTokens gets the same default', async () => {
    const gemini = new GoogleGenAI({ apiKey: 'k', httpOptions: { baseUrl: h.url } });
    await gemini.models.generateContent({ model: 'opus-46', contents: 'hi' });
    expect((h.lastRequest().json as { max_tokens?: unknown }).max_tokens).toBe(128000);
  });
});
