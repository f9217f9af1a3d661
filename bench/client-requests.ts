// What a client of each protocol sends: path, body and headers, as its official SDK would.
// The same prompt everywhere, so only the protocol differs between scenarios.
import type { ProtocolId } from '../server/ir/index.ts';

export interface ClientRequest {
  readonly path: string;
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
}

const SYSTEM = 'You are a benchmark.';
const USER = 'Say something about foxes and dogs.';

export function clientRequest(protocol: ProtocolId, model: string, stream: boolean, apiKey: string): ClientRequest {
  const json = { 'content-type': 'application/json' };
  const bearer = { ...json, authorization: `Bearer ${apiKey}` };
  switch (protocol) {
    case 'openai':
      return {
        path: '/v1/chat/completions',
        headers: bearer,
        body: JSON.stringify({
          model,
          stream,
          ...(stream && { stream_options: { include_usage: true } }),
          messages: [
            { role: 'system', content: SYSTEM },
            { role: 'user', content: USER },
          ],
        }),
      };
    case 'responses':
      return { path: '/v1/responses', headers: bearer, body: JSON.stringify({ model, stream, instructions: SYSTEM, input: USER }) };
    case 'anthropic':
      return {
        path: '/v1/messages',
        headers: { ...json, 'x-api-key': apiKey, 'anthropic-version': '2023-06-01' },
        body: JSON.stringify({ model, stream, max_tokens: 256, system: SYSTEM, messages: [{ role: 'user', content: USER }] }),
      };
    case 'gemini':
      return {
        path: `/v1beta/models/${encodeURIComponent(model)}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
        headers: { ...json, 'x-goog-api-key': apiKey },
        body: JSON.stringify({ systemInstruction: { parts: [{ text: SYSTEM }] }, contents: [{ role: 'user', parts: [{ text: USER }] }] }),
      };
    case 'bedrock':
      return {
        path: `/model/${encodeURIComponent(model)}/${stream ? 'converse-stream' : 'converse'}`,
        headers: bearer,
        body: JSON.stringify({ system: [{ text: SYSTEM }], messages: [{ role: 'user', content: [{ text: USER }] }], inferenceConfig: { maxTokens: 256 } }),
      };
    case 'cohere':
      return {
        path: '/v2/chat',
        headers: bearer,
        body: JSON.stringify({
          model,
          stream,
          messages: [
            { role: 'system', content: SYSTEM },
            { role: 'user', content: USER },
          ],
        }),
      };
  }
}
