// How a client of each protocol calls a model on the gateway: its path, and a minimal body.
import type { ProtocolId } from '../../server/ir/index.ts';

export function clientPath(protocol: ProtocolId, model: string, stream: boolean): string {
  if (protocol === 'gemini') return `/v1beta/models/${model}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`;
  if (protocol === 'bedrock') return `/model/${model}/${stream ? 'converse-stream' : 'converse'}`;
  return { openai: '/v1/chat/completions', responses: '/v1/responses', anthropic: '/v1/messages', cohere: '/v2/chat' }[protocol];
}

/** The smallest request a client of `protocol` sends. */
export function minimalRequest(protocol: ProtocolId, model: string, stream: boolean): Record<string, unknown> {
  const say = 'Answer as you did.';
  switch (protocol) {
    case 'openai':
      return { model, stream, messages: [{ role: 'user', content: say }], ...(stream && { stream_options: { include_usage: true } }) };
    case 'responses':
      return { model, stream, input: say };
    case 'anthropic':
      return { model, stream, max_tokens: 1024, messages: [{ role: 'user', content: say }] };
    case 'gemini':
      return { contents: [{ role: 'user', parts: [{ text: say }] }] };
    case 'bedrock':
      return { messages: [{ role: 'user', content: [{ text: say }] }] };
    case 'cohere':
      return { model, stream, messages: [{ role: 'user', content: say }] };
  }
}

export const CLIENT_HEADERS = { 'content-type': 'application/json', authorization: 'Bearer k', 'x-api-key': 'k', 'anthropic-version': '2023-06-01' };
