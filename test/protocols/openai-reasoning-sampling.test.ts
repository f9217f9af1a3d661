// OpenAI reasoning models refuse sampling other than the defaults: a translated request's
// temperature and top_p are not sent to them (with a warning when the value was not the default),
// except with reasoning effort "none", when GPT-5.1 and later take them.
import { describe, expect, it } from 'vitest';
import type { ChatRequest, ProtocolId } from '../../server/ir/index.ts';
import type { TranslationWarning } from '../../server/protocols/codec.ts';
import { encodeRequest as encodeOpenAI } from '../../server/protocols/openai/encode-request.ts';
import { encodeRequest as encodeResponses } from '../../server/protocols/responses/encode-request.ts';
import { isOpenAiReasoningModel, openAiSampling } from '../../server/protocols/shared/reasoning-models.ts';

const request = (extra: Partial<ChatRequest>, source: ProtocolId = 'gemini'): ChatRequest => ({
  model: 'm',
  stream: false,
  source,
  unmapped: [],
  messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
  ...extra,
});
const lane = (model: string) => ({ model, defaultMaxTokens: 4096 });
const paths = (warnings: readonly TranslationWarning[]) => warnings.map((w) => w.path);

describe('which OpenAI models are reasoning models', () => {
  it.each([
    'gpt-5',
    'gpt-5-mini',
    'gpt-5-nano',
    'gpt-5-codex',
    'gpt-5.1',
    'gpt-5.1-codex-max',
    'gpt-5.2-pro',
    'gpt-5-2025-08-07',
    'o1',
    'o1-mini',
    'o3',
    'o3-mini',
    'o3-pro',
    'o4-mini',
    'codex-mini-latest',
    'openai/gpt-5',
    'openai/o3',
  ])('%s is', (model) => {
    expect(isOpenAiReasoningModel(model)).toBe(true);
  });

  it.each([
    'gpt-5-chat-latest',
    'gpt-4o',
    'gpt-4.1-mini',
    'chatgpt-4o-latest',
    'gpt-3.5-turbo',
    'claude-sonnet-4-5',
    'gemini-2.5-pro',
    'command-a-reasoning-08-2025',
    'mistral-large',
    'llama-3.1-70b',
  ])('%s is not', (model) => {
    expect(isOpenAiReasoningModel(model)).toBe(false);
  });
});

describe('sampling for an OpenAI lane', () => {
  it('a reasoning model gets no temperature or top_p; a value other than the default is a warning', () => {
    const warnings: TranslationWarning[] = [];
    expect(openAiSampling({ temperature: 0, topP: 0.9, source: 'gemini' }, 'openai', 'gpt-5', 'medium', warnings)).toEqual({});
    expect(paths(warnings)).toEqual(['temperature', 'top_p']);
    expect(warnings[0]!.message).toContain('gpt-5 is a reasoning model');
  });

  it('the defaults are left out without a warning (nothing changes)', () => {
    const warnings: TranslationWarning[] = [];
    expect(openAiSampling({ temperature: 1, topP: 1, source: 'anthropic' }, 'responses', 'o3', undefined, warnings)).toEqual({});
    expect(warnings).toEqual([]);
  });

  it('reasoning effort "none" keeps them (GPT-5.1 and later take sampling then)', () => {
    const warnings: TranslationWarning[] = [];
    expect(openAiSampling({ temperature: 0.2, topP: 0.5, source: 'responses' }, 'openai', 'gpt-5.1', 'none', warnings)).toEqual({
      temperature: 0.2,
      topP: 0.5,
    });
    expect(warnings).toEqual([]);
  });

  it("a request of the lane's own protocol keeps them (its client chose them)", () => {
    const warnings: TranslationWarning[] = [];
    expect(openAiSampling({ temperature: 0, topP: 0.9, source: 'responses' }, 'responses', 'gpt-5', 'medium', warnings)).toEqual({ temperature: 0, topP: 0.9 });
    expect(warnings).toEqual([]);
  });

  it('other models keep them', () => {
    const warnings: TranslationWarning[] = [];
    expect(openAiSampling({ temperature: 0, topP: 0.3, source: 'cohere' }, 'openai', 'gpt-4o', 'medium', warnings)).toEqual({ temperature: 0, topP: 0.3 });
    expect(warnings).toEqual([]);
  });
});

describe.each([
  ['OpenAI Chat', encodeOpenAI],
  ['Responses', encodeResponses],
] as const)('%s request encoder', (name, encode) => {
  it("Gemini CLI's temperature 0 / topP 1 to gpt-5: neither sent, one warning", () => {
    const { body, warnings } = encode(request({ temperature: 0, topP: 1, reasoning: { budgetTokens: 8192, summary: 'auto' } }), lane('gpt-5'));
    expect(body).not.toHaveProperty('temperature');
    expect(body).not.toHaveProperty('top_p');
    expect(paths(warnings)).toContain('temperature');
    expect(paths(warnings)).not.toContain('top_p');
  });

  it('without a reasoning setting a reasoning model still reasons: dropped', () => {
    const { body, warnings } = encode(request({ temperature: 0.7 }, 'anthropic'), lane('o4-mini'));
    expect(body).not.toHaveProperty('temperature');
    expect(paths(warnings)).toEqual(['temperature']);
  });

  it('an OpenAI client turning reasoning off on gpt-5.1 keeps its sampling', () => {
    const { body, warnings } = encode(
      request({ temperature: 0.3, topP: 0.8, reasoning: { effort: 'none' } }, name === 'Responses' ? 'openai' : 'responses'),
      lane('gpt-5.1'),
    );
    expect(body).toMatchObject({ temperature: 0.3, top_p: 0.8 });
    expect(paths(warnings)).not.toContain('temperature');
  });

  it('a non-reasoning model gets them as sent', () => {
    const { body, warnings } = encode(request({ temperature: 0, topP: 0.5 }), lane('gpt-4.1'));
    expect(body).toMatchObject({ temperature: 0, top_p: 0.5 });
    expect(warnings).toEqual([]);
  });
});
