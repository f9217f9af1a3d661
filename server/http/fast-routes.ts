import type { IncomingMessage, ServerResponse } from 'node:http';
import type { LiveGateway } from '../gateway/gateway-context.ts';
import type { ProtocolId } from '../ir/index.ts';
import type { RequestOrigin } from '../protocols/codec.ts';
import { PROTOCOLS } from '../protocols/registry.ts';
import { OPERATION_HANDLERS, type ServeOperation } from './operation-handlers.ts';
import { requestIdFor } from './request-id.ts';
import { answerUnexpected } from './serve-chat.ts';

interface FastRoute {
  readonly protocol: ProtocolId;
  readonly serve: ServeOperation;
}

/** Nothing in the path: the body names the model and the stream flag. Shared, never written. */
const BODY_ONLY: RequestOrigin = Object.freeze({});

/**
 * The POST routes with fixed paths whose body carries everything (most traffic), from the
 * registry, built once: `/v1/chat/completions`, `/v1/responses`, `/v1/messages`, `/v2/chat`, ...
 */
export function fastRouteTable(): ReadonlyMap<string, FastRoute> {
  const table = new Map<string, FastRoute>();
  for (const protocol of PROTOCOLS) {
    for (const route of protocol.routes) {
      const serve = OPERATION_HANDLERS[route.operation];
      if (route.method !== 'POST' || route.origin !== undefined || route.path.includes(':') || serve === undefined || table.has(route.path)) continue;
      table.set(route.path, { protocol: protocol.id, serve });
    }
  }
  return table;
}

/**
 * A request listener that serves POSTs to the fixed protocol paths directly and hands everything
 * else (models in the path, operational routes, 404s and 405s) to the Koa app. Koa's context,
 * middleware chain and router cost more CPU per request than the rest of a passthrough request's
 * own work; the answers are the same either way (the Koa routes call the same handlers).
 */
export function withFastChatRoutes(
  live: LiveGateway,
  fallback: (req: IncomingMessage, res: ServerResponse) => void,
): (req: IncomingMessage, res: ServerResponse) => void {
  const routes = fastRouteTable();
  return (req, res) => {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const route = req.method === 'POST' ? routes.get(q < 0 ? url : url.slice(0, q)) : undefined;
    if (route === undefined) return fallback(req, res);
    const { protocol } = route;
    const requestId = requestIdFor(req.headers);
    const gateway = live.current;
    route
      .serve(gateway, req, res, { protocol, origin: BODY_ONLY, query: q < 0 ? '' : url.slice(q + 1), requestId })
      .catch((error: unknown) => answerUnexpected(gateway, res, protocol, requestId, error));
  };
}
