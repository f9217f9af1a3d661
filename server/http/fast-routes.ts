import type { IncomingMessage, ServerResponse } from 'node:http';
import type { LiveGateway } from '../gateway/gateway-context.ts';
import type { ProtocolId } from '../ir/index.ts';
import { requestIdFor } from './request-id.ts';
import { answerUnexpected, serveChat } from './serve-chat.ts';

/** The chat routes with fixed paths: most traffic, served without the Koa stack in between. */
const FIXED_CHAT_PATHS: ReadonlyMap<string, ProtocolId> = new Map([
  ['/v1/chat/completions', 'openai'],
  ['/v1/responses', 'responses'],
  ['/v1/messages', 'anthropic'],
  ['/v2/chat', 'cohere'],
]);

/**
 * A request listener that serves POSTs to the fixed chat paths directly and hands everything
 * else (models in the path, operational routes, 404s and 405s) to the Koa app. Koa's context,
 * middleware chain and router cost more CPU per request than the rest of a passthrough request's
 * own work; the answers are the same either way (the Koa routes call the same serveChat).
 */
export function withFastChatRoutes(live: LiveGateway, fallback: (req: IncomingMessage, res: ServerResponse) => void): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const protocol = req.method === 'POST' ? FIXED_CHAT_PATHS.get(q < 0 ? url : url.slice(0, q)) : undefined;
    if (protocol === undefined) return fallback(req, res);
    const requestId = requestIdFor(req.headers);
    const gateway = live.current;
    serveChat(gateway, req, res, { protocol, origin: {}, query: q < 0 ? '' : url.slice(q + 1), requestId })
      .catch((error: unknown) => answerUnexpected(gateway, res, protocol, requestId, error));
  };
}
