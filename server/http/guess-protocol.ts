import type { IncomingHttpHeaders } from 'node:http';
import type { ProtocolId } from '../ir/index.ts';
import { DEFAULT_PROTOCOL, PROTOCOLS } from '../protocols/registry.ts';

/**
 * For answers outside a protocol route (404, 405, crashes): the error shape the client most likely
 * reads. A protocol's own path decides first (a stray `anthropic-version` on a Bedrock or Gemini
 * path does not make its client an Anthropic one); a protocol's header decides only for paths any
 * client might call. Each protocol says what it claims in its definition.
 */
export function guessProtocol(path: string, headers: IncomingHttpHeaders): ProtocolId {
  for (const protocol of PROTOCOLS) if (protocol.claimsPath(path)) return protocol.id;
  for (const protocol of PROTOCOLS) if (protocol.claimsHeader !== undefined && headers[protocol.claimsHeader] !== undefined) return protocol.id;
  return DEFAULT_PROTOCOL;
}
