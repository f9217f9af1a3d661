import type { IncomingMessage, ServerResponse } from 'node:http';
import { countTokens, isCountingProtocol } from '../gateway/count-tokens.ts';
import type { Gateway } from '../gateway/gateway-context.ts';
import type { ProtocolId } from '../ir/index.ts';
import type { Operation } from '../ir/operation.ts';
import type { RequestOrigin } from '../protocols/codec.ts';
import { serveChat } from './serve-chat.ts';
import { serveEmbeddings, serveMedia, serveRerank } from './serve-operation.ts';

/** One data-plane request, routed: whose protocol, what the path said, the raw query, its id. */
export interface OperationCall {
  readonly protocol: ProtocolId;
  readonly origin: RequestOrigin;
  readonly query: string;
  readonly requestId: string;
}

/** Serves one request of an operation; it writes the response itself (it decides when to commit). */
export type ServeOperation = (gateway: Gateway, req: IncomingMessage, res: ServerResponse, call: OperationCall) => Promise<void>;

const serveCountTokens: ServeOperation = (gateway, req, res, call) => {
  if (!isCountingProtocol(call.protocol)) throw new Error(`no token count answer for ${call.protocol}`);
  const { pathModel } = call.origin;
  return countTokens(gateway, req, res, {
    protocol: call.protocol,
    ...(pathModel !== undefined && { pathModel }),
    query: call.query,
    requestId: call.requestId,
  });
};

/**
 * The handler of each operation the gateway serves, one line each. A protocol route of an
 * operation without one here is not registered (its path answers 404 route_not_found).
 */
export const OPERATION_HANDLERS: { readonly [O in Operation]?: ServeOperation } = {
  chat: serveChat,
  count_tokens: serveCountTokens,
  embeddings: serveEmbeddings,
  moderations: serveMedia,
  images: serveMedia,
  audio: serveMedia,
  rerank: serveRerank,
};
