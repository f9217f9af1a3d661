import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Exchange, Gateway } from '../gateway/gateway-context.ts';
import { handleChat } from '../gateway/handle-chat.ts';
import { INGRESS } from '../gateway/ingress.ts';
import { RequestExchange } from '../gateway/request-exchange.ts';
import type { OperationCall } from './operation-handlers.ts';
import { gatewayError, type ProtocolId } from '../ir/index.ts';

/**
 * One chat request handed to the pipeline, which writes the response itself (it decides when to
 * commit). Called from the Koa routes and from the fast path for fixed chat paths (fast-routes.ts).
 */
export function serveChat(gateway: Gateway, req: IncomingMessage, res: ServerResponse, call: OperationCall): Promise<void> {
  // Not async: the pipeline's own promise is handed back, with no frame around it. A throw while
  // the exchange is built is still a rejection, as callers (fast-routes.ts) catch it.
  let exchange: Exchange;
  try {
    exchange = newExchange(gateway, req, res, call);
  } catch (error) {
    return Promise.reject(error);
  }
  return handleChat(exchange);
}

/** A request's exchange, as every operation's pipeline takes it. */
export function newExchange(gateway: Gateway, req: IncomingMessage, res: ServerResponse, call: OperationCall): Exchange {
  return new RequestExchange(gateway, req, res, call.protocol, call.origin, call.query, call.requestId);
}

/** The last line of defence for a fast-path request (any operation): an exception outside the pipeline's own handling. */
export function answerUnexpected(gateway: Gateway, res: ServerResponse, protocol: ProtocolId, requestId: string, error: unknown): void {
  gateway.log.error({ err: error, requestId }, 'unexpected data plane failure');
  if (res.headersSent) return void res.destroy();
  const envelope = INGRESS[protocol].codec.encodeError(gatewayError('server', 'internal gateway error', { code: 'internal_error' }));
  res.writeHead(envelope.status, { ...envelope.headers, 'x-request-id': requestId });
  res.end(envelope.body);
}
