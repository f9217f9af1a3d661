import type { IncomingHttpHeaders } from 'node:http';
import type { ProtocolId } from '../ir/index.ts';

/** For answers outside a protocol route (404, 405, crashes): the error shape the client most likely reads. */
export function guessProtocol(path: string, headers: IncomingHttpHeaders): ProtocolId {
  // `/v1/messages`, `/{model}/v1/messages` and the sub-routes this gateway does not serve (count_tokens).
  if (headers['anthropic-version'] !== undefined || /\/v1\/messages(\/|$)/.test(path)) return 'anthropic';
  if (path.startsWith('/v1beta/') || path.includes(':generateContent') || path.includes(':streamGenerateContent')) return 'gemini';
  if (path.startsWith('/model/')) return 'bedrock';
  if (path.startsWith('/v2/')) return 'cohere';
  if (path.startsWith('/v1/responses')) return 'responses';
  return 'openai';
}
