// Reasoning settings cross every protocol pair, and the upstream's reasoning reaches the clients
// that have a place for it. Each client (its official SDK) asks for "high" reasoning in its own
// words (a level, or a 16384-token budget, the table's equal of "high"); each upstream must see
// the same in its words. The upstream answers with reasoning and text; each client must see the
// reasoning where its protocol has a place for it (OpenAI Chat: `reasoning_content`).
import Anthropic from '@anthropic-ai/sdk';
import { BedrockRuntimeClient, ConverseCommand } from '@aws-sdk/client-bedrock-runtime';
import { GoogleGenAI } from '@google/genai';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { CohereClientV2 } from 'cohere-ai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningGateway } from '../../server/app/start-gateway.ts';
import type { ChatResponse, ProtocolId } from '../../server/ir/index.ts';
import { PROTOCOL_IDS } from '../../server/protocols/registry.ts';
import { startScriptedUpstream, type ScriptedUpstream, type SeenRequest } from './support/scripted-upstream.ts';
import { startSixLaneGateway } from './support/six-lane-gateway.ts';

const THOUGHT = 'Weighing both options.';
const ANSWER = 'Option B.';
const HIGH_BUDGET = 16384;

/** The upstream's answer: its own (signed where the protocol signs) reasoning, then text. */
function reply(request: SeenRequest): ChatResponse {
  const p = request.protocol;
  const proof =
    p === 'anthropic' || p === 'bedrock' || p === 'gemini' ? { signature: `sig-${p}` } : p === 'responses' ? { redacted: 'enc-responses', id: 'rs_1' } : {};
  return {
    id: `resp_${p}`,
    model: `model-${p}`,
    content: [
      { type: 'reasoning', text: THOUGHT, origin: p, ...proof },
      { type: 'text', text: ANSWER },
    ],
    finish: { reason: 'stop', raw: null },
    usage: { inputTokens: 10, outputTokens: 20, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 12 },
  };
}

let upstream: ScriptedUpstream;
let gateway: RunningGateway;
beforeAll(async () => {
  upstream = await startScriptedUpstream(reply);
  gateway = await startSixLaneGateway(upstream.url);
});
afterAll(async () => {
  await gateway.close();
  await upstream.close();
});

interface Answer {
  text: string;
  reasoning: string;
  warnings: string;
}

/** Each client asks for high reasoning its own way, and returns the answer's text and reasoning as its SDK parsed them. */
const ASK: Record<ProtocolId, (model: string) => Promise<Answer>> = {
  async openai(model) {
    const openai = new OpenAI({ apiKey: 'k', baseURL: `${gateway.dataUrl}/v1`, maxRetries: 0 });
    const { data, response } = await openai.chat.completions
      .create({ model, reasoning_effort: 'high', messages: [{ role: 'user', content: 'A or B?' }] })
      .withResponse();
    const message = data.choices[0]!.message as OpenAI.ChatCompletionMessage & { reasoning_content?: string };
    return { text: message.content ?? '', reasoning: message.reasoning_content ?? '', warnings: response.headers.get('x-gateway-warnings') ?? '' };
  },
  async responses(model) {
    const openai = new OpenAI({ apiKey: 'k', baseURL: `${gateway.dataUrl}/v1`, maxRetries: 0 });
    const { data, response } = await openai.responses.create({ model, reasoning: { effort: 'high', summary: 'auto' }, input: 'A or B?' }).withResponse();
    const reasoning = data.output.flatMap((item) => (item.type === 'reasoning' ? item.summary.map((s) => s.text) : [])).join('');
    return { text: data.output_text, reasoning, warnings: response.headers.get('x-gateway-warnings') ?? '' };
  },
  async anthropic(model) {
    const anthropic = new Anthropic({ apiKey: 'k', baseURL: gateway.dataUrl, maxRetries: 0 });
    const { data, response } = await anthropic.messages
      .create({ model, max_tokens: 20000, thinking: { type: 'enabled', budget_tokens: HIGH_BUDGET }, messages: [{ role: 'user', content: 'A or B?' }] })
      .withResponse();
    return {
      text: data.content.map((b) => (b.type === 'text' ? b.text : '')).join(''),
      reasoning: data.content.map((b) => (b.type === 'thinking' ? b.thinking : '')).join(''),
      warnings: response.headers.get('x-gateway-warnings') ?? '',
    };
  },
  async gemini(model) {
    const gemini = new GoogleGenAI({ apiKey: 'k', httpOptions: { baseUrl: gateway.dataUrl } });
    const out = await gemini.models.generateContent({
      model,
      contents: 'A or B?',
      config: { thinkingConfig: { thinkingBudget: HIGH_BUDGET, includeThoughts: true } },
    });
    const parts = out.candidates?.[0]?.content?.parts ?? [];
    return {
      text: parts
        .filter((p) => p.thought !== true)
        .map((p) => p.text ?? '')
        .join(''),
      reasoning: parts
        .filter((p) => p.thought === true)
        .map((p) => p.text ?? '')
        .join(''),
      warnings: out.sdkHttpResponse?.headers?.['x-gateway-warnings'] ?? '',
    };
  },
  async bedrock(model) {
    const bedrock = new BedrockRuntimeClient({
      region: 'us-east-1',
      endpoint: gateway.dataUrl,
      credentials: { accessKeyId: 'k', secretAccessKey: 'k' },
      requestHandler: new NodeHttpHandler(),
      maxAttempts: 1,
    });
    const out = await bedrock.send(
      new ConverseCommand({
        modelId: model,
        messages: [{ role: 'user', content: [{ text: 'A or B?' }] }],
        inferenceConfig: { maxTokens: 20000 },
        additionalModelRequestFields: { thinking: { type: 'enabled', budget_tokens: HIGH_BUDGET } },
      }),
    );
    const content = out.output?.message?.content ?? [];
    return {
      text: content.map((b) => b.text ?? '').join(''),
      reasoning: content.map((b) => b.reasoningContent?.reasoningText?.text ?? '').join(''),
      warnings: '',
    };
  },
  async cohere(model) {
    const cohere = new CohereClientV2({ token: 'k', environment: gateway.dataUrl });
    const out = await cohere.chat({ model, messages: [{ role: 'user', content: 'A or B?' }], thinking: { type: 'enabled', tokenBudget: HIGH_BUDGET } });
    const content = out.message?.content ?? [];
    return {
      text: content.map((b) => (b.type === 'text' ? b.text : '')).join(''),
      reasoning: content.map((b) => (b.type === 'thinking' ? b.thinking : '')).join(''),
      warnings: '',
    };
  },
};

/** Clients whose way of asking for reasoning also asks to be shown it (the Gemini and Responses lanes then ask for summaries). */
const SHOWS: Record<ProtocolId, boolean> = { openai: false, responses: true, anthropic: true, gemini: true, bedrock: true, cohere: true };

/** What each upstream must see for "high", in its own words. */
function expectHigh(seen: SeenRequest, shows: boolean): void {
  const j = seen.json as Record<string, any>;
  switch (seen.protocol) {
    case 'openai':
      expect(j.reasoning_effort).toBe('high');
      break;
    case 'responses':
      expect(j.reasoning).toEqual({ effort: 'high', ...(shows && { summary: 'auto' }) });
      break;
    case 'anthropic':
      expect(j.thinking).toEqual({ type: 'enabled', budget_tokens: HIGH_BUDGET });
      expect(j.max_tokens).toBeGreaterThan(HIGH_BUDGET);
      break;
    case 'gemini':
      expect(j.generationConfig.thinkingConfig).toEqual({ thinkingBudget: HIGH_BUDGET, ...(shows && { includeThoughts: true }) });
      break;
    case 'bedrock':
      expect(j.additionalModelRequestFields).toEqual({ thinking: { type: 'enabled', budget_tokens: HIGH_BUDGET } });
      expect(j.inferenceConfig.maxTokens).toBeGreaterThan(HIGH_BUDGET);
      break;
    case 'cohere':
      expect(j.thinking).toEqual({ type: 'enabled', token_budget: HIGH_BUDGET });
      break;
  }
}

/**
 * Clients with a plain place for another provider's reasoning see it all. Anthropic and Bedrock
 * clients replay thinking to upstreams that verify its signature, so they see unsigned reasoning
 * (an OpenAI-compatible upstream's `reasoning_content`) and Claude's from the other Claude
 * protocol (carried in the signature); Responses clients replay reasoning items, so they see
 * OpenAI's own and Claude's (carried in encrypted_content).
 */
const sees = (client: ProtocolId, egress: ProtocolId) =>
  client === 'openai' ||
  client === 'gemini' ||
  client === 'cohere' ||
  ((client === 'anthropic' || client === 'bedrock') && (egress === 'openai' || egress === 'anthropic' || egress === 'bedrock')) ||
  (client === 'responses' && (egress === 'anthropic' || egress === 'bedrock'));

describe.each(PROTOCOL_IDS)('a %s client asking for high reasoning', (client) => {
  it.each(PROTOCOL_IDS.filter((p) => p !== client))('reaches a %s upstream as high, and sees its reasoning where it has a place', async (egress) => {
    upstream.requests.length = 0;
    const answer = await ASK[client](`m-${egress}`);
    expect(upstream.requests).toHaveLength(1);
    expectHigh(upstream.requests[0]!, SHOWS[client]);
    expect(answer.text).toBe(ANSWER);
    expect(answer.reasoning).toBe(sees(client, egress) ? THOUGHT : '');
  });
});

describe('target constraints', () => {
  const openai = () => new OpenAI({ apiKey: 'k', baseURL: `${gateway.dataUrl}/v1`, maxRetries: 0 });

  it("sends the lane's maximum when the client set none, the budget below it", async () => {
    upstream.requests.length = 0;
    const { response } = await openai()
      .chat.completions.create({ model: 'm-anthropic', reasoning_effort: 'high', messages: [{ role: 'user', content: 'A or B?' }] })
      .withResponse();
    // claude-sonnet-4-5's output ceiling in the catalog is 64000: the high budget fits below it.
    expect(upstream.requests[0]!.json).toMatchObject({ thinking: { type: 'enabled', budget_tokens: HIGH_BUDGET }, max_tokens: 64000 });
    expect(response.headers.get('x-gateway-warnings') ?? '').not.toContain('max_tokens');
  });

  it("lowers a budget that does not fit below the lane's maximum to three quarters of it, and says so", async () => {
    upstream.requests.length = 0;
    const gemini = new GoogleGenAI({ apiKey: 'k', httpOptions: { baseUrl: gateway.dataUrl } });
    await gemini.models.generateContent({ model: 'm-anthropic', contents: 'A or B?', config: { thinkingConfig: { thinkingBudget: 100_000 } } });
    expect(upstream.requests[0]!.json).toMatchObject({ thinking: { type: 'enabled', budget_tokens: 48000 }, max_tokens: 64000 });
  });

  it("keeps the client's own max_tokens and lowers the budget below it", async () => {
    upstream.requests.length = 0;
    const { response } = await openai()
      .chat.completions.create({
        model: 'm-anthropic',
        reasoning_effort: 'high',
        max_completion_tokens: 3000,
        messages: [{ role: 'user', content: 'A or B?' }],
      })
      .withResponse();
    expect(upstream.requests[0]!.json).toMatchObject({ thinking: { type: 'enabled', budget_tokens: 2999 }, max_tokens: 3000 });
    expect(response.headers.get('x-gateway-warnings')).toContain('reshaped=reasoning.budget_tokens');
  });

  it("raises a budget under Claude's least (1024), and drops thinking when max_tokens leaves no room", async () => {
    const gemini = new GoogleGenAI({ apiKey: 'k', httpOptions: { baseUrl: gateway.dataUrl } });
    upstream.requests.length = 0;
    await gemini.models.generateContent({ model: 'm-anthropic', contents: 'A or B?', config: { thinkingConfig: { thinkingBudget: 200 } } });
    expect(upstream.requests[0]!.json).toMatchObject({ thinking: { type: 'enabled', budget_tokens: 1024 } });
    upstream.requests.length = 0;
    await gemini.models.generateContent({
      model: 'm-anthropic',
      contents: 'A or B?',
      config: { maxOutputTokens: 800, thinkingConfig: { thinkingBudget: 4000 } },
    });
    expect(upstream.requests[0]!.json).not.toHaveProperty('thinking');
  });

  it("continues a tool loop without thinking when the client could not send Claude's thinking back, and says so", async () => {
    upstream.requests.length = 0;
    const { response } = await openai()
      .chat.completions.create({
        model: 'm-anthropic',
        reasoning_effort: 'high',
        tools: [{ type: 'function', function: { name: 'ls', parameters: { type: 'object', properties: {} } } }],
        messages: [
          { role: 'user', content: 'List files.' },
          { role: 'assistant', content: null, tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'ls', arguments: '{}' } }] },
          { role: 'tool', tool_call_id: 'toolu_1', content: 'a.ts' },
        ],
      })
      .withResponse();
    expect(upstream.requests[0]!.json).not.toHaveProperty('thinking');
    expect(response.headers.get('x-gateway-warnings')).toContain('dropped=reasoning');
  });

  it('sends "none" only when an OpenAI client named it: another protocol\'s "off" is not sent to OpenAI models', async () => {
    const anthropic = new Anthropic({ apiKey: 'k', baseURL: gateway.dataUrl, maxRetries: 0 });
    upstream.requests.length = 0;
    const { response } = await anthropic.messages
      .create({ model: 'm-openai', max_tokens: 100, thinking: { type: 'disabled' }, messages: [{ role: 'user', content: 'A or B?' }] })
      .withResponse();
    expect(upstream.requests[0]!.json).not.toHaveProperty('reasoning_effort');
    expect(response.headers.get('x-gateway-warnings')).toContain('dropped=reasoning');
    upstream.requests.length = 0;
    await openai().chat.completions.create({ model: 'm-responses', reasoning_effort: 'none', messages: [{ role: 'user', content: 'A or B?' }] });
    expect(upstream.requests[0]!.json).toMatchObject({ reasoning: { effort: 'none' } });
    upstream.requests.length = 0;
    await openai().chat.completions.create({ model: 'm-cohere', reasoning_effort: 'none', messages: [{ role: 'user', content: 'A or B?' }] });
    expect(upstream.requests[0]!.json).toMatchObject({ thinking: { type: 'disabled' } });
  });

  it('adjusts the sampling Claude refuses while thinking, and leaves thinking off when a tool call is forced', async () => {
    const gemini = new GoogleGenAI({ apiKey: 'k', httpOptions: { baseUrl: gateway.dataUrl } });
    upstream.requests.length = 0;
    await gemini.models.generateContent({
      model: 'm-anthropic',
      contents: 'A or B?',
      config: { temperature: 0.2, topK: 40, topP: 0.5, thinkingConfig: { thinkingBudget: 4096 } },
    });
    const sent = upstream.requests[0]!.json;
    expect(sent).toMatchObject({ thinking: { type: 'enabled', budget_tokens: 4096 }, top_p: 0.95 });
    expect(sent).not.toHaveProperty('temperature');
    expect(sent).not.toHaveProperty('top_k');
    upstream.requests.length = 0;
    await openai().chat.completions.create({
      model: 'm-bedrock',
      reasoning_effort: 'high',
      temperature: 0.3,
      tool_choice: 'required',
      tools: [{ type: 'function', function: { name: 'ls', parameters: { type: 'object', properties: {} } } }],
      messages: [{ role: 'user', content: 'List files.' }],
    });
    expect(upstream.requests[0]!.json).not.toHaveProperty('additionalModelRequestFields');
    expect(upstream.requests[0]!.json).toMatchObject({ inferenceConfig: { temperature: 0.3 } });
  });

  it("maps a level to Gemini 3's thinkingLevel, and a budget to the nearest level for OpenAI", async () => {
    upstream.requests.length = 0;
    await openai().chat.completions.create({ model: 'm-gemini-3', reasoning_effort: 'low', messages: [{ role: 'user', content: 'A or B?' }] });
    expect(upstream.requests[0]!.json).toMatchObject({ generationConfig: { thinkingConfig: { thinkingLevel: 'low' } } });
    const anthropic = new Anthropic({ apiKey: 'k', baseURL: gateway.dataUrl, maxRetries: 0 });
    upstream.requests.length = 0;
    await anthropic.messages.create({
      model: 'm-openai',
      max_tokens: 9000,
      thinking: { type: 'enabled', budget_tokens: 5000 },
      messages: [{ role: 'user', content: 'A or B?' }],
    });
    expect(upstream.requests[0]!.json).toMatchObject({ reasoning_effort: 'low' }); // 2560 <= 5000 < 6144
  });

  it("streams the upstream's reasoning to an OpenAI Chat client as reasoning_content deltas", async () => {
    let reasoning = '';
    let text = '';
    for await (const chunk of await openai().chat.completions.create({
      model: 'm-anthropic',
      stream: true,
      reasoning_effort: 'medium',
      messages: [{ role: 'user', content: 'A or B?' }],
    })) {
      const delta = chunk.choices[0]?.delta as { content?: string | null; reasoning_content?: string } | undefined;
      reasoning += delta?.reasoning_content ?? '';
      text += delta?.content ?? '';
    }
    expect([reasoning, text]).toEqual([THOUGHT, ANSWER]);
  });
});
