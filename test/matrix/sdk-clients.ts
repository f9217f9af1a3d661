// One official SDK per ingress protocol, each pointed at the gateway by base URL only, with a
// uniform call: ask `model` for a short answer, streaming or not, and return the text it parsed.
import { ConverseCommand, ConverseStreamCommand } from '@aws-sdk/client-bedrock-runtime';
import type { ProtocolId } from '../../server/ir/index.ts';
import { anthropicAt, bedrockAt, cohereAt, geminiAt, openaiAt } from '../support/sdk-at.ts';

export type SdkCall = (model: string, stream: boolean) => Promise<string>;
const PROMPT = 'Say pong.';

/** `onBedrockHeaders`: sees each Bedrock answer's headers (the other SDKs use the global fetch, which a test can wrap). */
export function sdkClients(gatewayUrl: string, options: { onBedrockHeaders?: (headers: Record<string, string>) => void } = {}): Record<ProtocolId, SdkCall> {
  const openai = openaiAt(gatewayUrl);
  const anthropic = anthropicAt(gatewayUrl);
  const gemini = geminiAt(gatewayUrl);
  const bedrock = bedrockAt(gatewayUrl);
  const onHeaders = options.onBedrockHeaders;
  if (onHeaders !== undefined) {
    bedrock.middlewareStack.add(
      (next) => async (args) => {
        const out = await next(args);
        onHeaders((out.response as { headers?: Record<string, string> }).headers ?? {});
        return out;
      },
      { step: 'deserialize', name: 'gatewayTestHeaders' },
    );
  }
  const cohere = cohereAt(gatewayUrl);

  return {
    openai: async (model, stream) => {
      if (!stream) return (await openai.chat.completions.create({ model, messages: [{ role: 'user', content: PROMPT }] })).choices[0]?.message.content ?? '';
      let text = '';
      for await (const chunk of await openai.chat.completions.create({ model, stream: true, messages: [{ role: 'user', content: PROMPT }] }))
        text += chunk.choices[0]?.delta.content ?? '';
      return text;
    },
    responses: async (model, stream) => {
      if (!stream) return (await openai.responses.create({ model, input: PROMPT })).output_text;
      return (await openai.responses.stream({ model, input: PROMPT }).finalResponse()).output_text;
    },
    anthropic: async (model, stream) => {
      const params = { model, max_tokens: 64, messages: [{ role: 'user' as const, content: PROMPT }] };
      const message = stream ? await anthropic.messages.stream(params).finalMessage() : await anthropic.messages.create(params);
      return message.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
    },
    gemini: async (model, stream) => {
      if (!stream) return (await gemini.models.generateContent({ model, contents: PROMPT })).text ?? '';
      let text = '';
      for await (const chunk of await gemini.models.generateContentStream({ model, contents: PROMPT })) text += chunk.text ?? '';
      return text;
    },
    bedrock: async (model, stream) => {
      const input = { modelId: model, messages: [{ role: 'user' as const, content: [{ text: PROMPT }] }] };
      if (!stream) {
        const out = await bedrock.send(new ConverseCommand(input));
        return (out.output?.message?.content ?? []).map((b) => b.text ?? '').join('');
      }
      const out = await bedrock.send(new ConverseStreamCommand(input));
      let text = '';
      for await (const event of out.stream ?? []) text += event.contentBlockDelta?.delta?.text ?? '';
      return text;
    },
    cohere: async (model, stream) => {
      const request = { model, messages: [{ role: 'user' as const, content: PROMPT }] };
      if (!stream) {
        const out = await cohere.chat(request);
        return (out.message?.content ?? []).map((b) => (b.type === 'text' ? b.text : '')).join('');
      }
      let text = '';
      for await (const event of await cohere.chatStream(request)) {
        if (event.type === 'content-delta') text += event.delta?.message?.content?.text ?? '';
      }
      return text;
    },
  };
}
