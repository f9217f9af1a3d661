import type { IncomingMessage, ServerResponse } from 'node:http';
import type { LiveGateway } from '../gateway/gateway-context.ts';
import type { ProtocolId } from '../ir/index.ts';
import type { RequestOrigin } from '../protocols/codec.ts';
import { PROTOCOLS } from '../protocols/registry.ts';
import { OPERATION_HANDLERS, type ServeOperation } from './operation-handlers.ts';
import { ParamRoutes } from './param-routes.ts';
import { requestIdFor } from './request-id.ts';
import { answerUnexpected } from './serve-chat.ts';

interface FastRoute {
  readonly protocol: ProtocolId;
  readonly serve: ServeOperation;
  /** What the path says besides the body: nothing for a fixed path (BODY_ONLY). */
  readonly origin: RequestOrigin;
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
      table.set(route.path, { protocol: protocol.id, serve, origin: BODY_ONLY });
    }
  }
  return table;
}

/**
 * A request listener that serves POSTs to the protocol paths directly (the fixed ones, then those
 * with the model in the path: Gemini, Bedrock, param-routes.ts) and hands everything else
 * (operational routes, 404s and 405s) to the Koa app. Koa's context, middleware chain and router
 * cost more CPU per request than the rest of a passthrough request's own work (a Gemini request
 * through Koa cost 2.1x the floor where an OpenAI one cost 1.3-1.7x, bench/RESULTS.md session 8);
 * the answers are the same either way (the Koa routes call the same handlers).
 */
export function withFastChatRoutes(
  live: LiveGateway,
  fallback: (req: IncomingMessage, res: ServerResponse) => void,
): (req: IncomingMessage, res: ServerResponse) => void {
  const routes = fastRouteTable();
  const paramRoutes = new ParamRoutes();
  return (req, res) => {
    if (req.method !== 'POST') return fallback(req, res);
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const query = q < 0 ? '' : url.slice(q + 1);
    const route = routes.get(path) ?? paramRoutes.match(path, query);
    if (route === undefined) return fallback(req, res);
    const { protocol, origin } = route;
    const requestId = requestIdFor(req.headers);
    const gateway = live.current;
    route
      .serve(gateway, req, res, { protocol, origin, query, requestId })
      .catch((error: unknown) => answerUnexpected(gateway, res, protocol, requestId, error));
  };
}
