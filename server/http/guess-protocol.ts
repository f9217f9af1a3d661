import type { IncomingHttpHeaders } from 'node:http';
import type { ProtocolId } from '../ir/index.ts';

/**
 * For answers outside a protocol route (404, 405, crashes): the error shape the client most likely
 * reads. A protocol's own path decides first (a stray `anthropic-version` on a Bedrock or Gemini
 * path does not make its client an Anthropic one); the header decides only for paths any client
 * might call.
 */
export function guessProtocol(path: string, headers: IncomingHttpHeaders): ProtocolId {
  // `/v1/messages`, `/{model}/v1/messages` and the sub-routes this gateway does not serve (count_tokens).
  if (/\/v1\/messages(\/|$)/.test(path)) return 'anthropic';
  if (path.startsWith('/v1beta/') || path.includes(':generateContent') || path.includes(':streamGenerateContent')) return 'gemini';
  if (path.startsWith('/model/')) return 'bedrock';
  if (path.startsWith('/v2/')) return 'cohere';
  if (path.startsWith('/v1/responses')) return 'responses';
  if (headers['anthropic-version'] !== undefined) return 'anthropic';
  return 'openai';
}
