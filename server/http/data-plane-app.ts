import Router from '@koa/router';
import Koa from 'koa';
import { gatewayError } from '../ir/index.ts';
import { ClientResponse } from '../gateway/client-response.ts';
import type { Gateway } from '../gateway/gateway-context.ts';
import { handleChat } from '../gateway/handle-chat.ts';
import { ANTHROPIC_INGRESS, OPENAI_INGRESS, type Ingress } from '../gateway/ingress.ts';
import { listModels } from './list-models.ts';
import { newRequestId } from './request-id.ts';

/** The data plane (default :8080): one route per wire protocol, plus the operational routes. */
export function createDataPlaneApp(gateway: Gateway): Koa {
  const app = new Koa();
  const router = new Router();

  const chat = (ingress: Ingress) => async (ctx: Koa.Context) => {
    ctx.respond = false; // the pipeline writes the response itself: it decides when to commit
    const requestId = ctx.state.requestId as string;
    const aborted = new AbortController();
    ctx.res.on('close', () => {
      if (!ctx.res.writableFinished) aborted.abort();
    });
    const pathModel = typeof ctx.params.model === 'string' ? ctx.params.model : undefined; // percent-decoded by the router
    await handleChat({
      gateway,
      req: ctx.req,
      res: new ClientResponse(ctx.res, { 'x-request-id': requestId }),
      ingress,
      origin: pathModel === undefined ? {} : { pathModel },
      requestId,
      signal: aborted.signal,
      log: gateway.log.child({ requestId, protocol: ingress.codec.id }),
    });
  };

  router.post('/v1/chat/completions', chat(OPENAI_INGRESS));
  router.post('/v1/messages', chat(ANTHROPIC_INGRESS));
  router.post('/:model/v1/messages', chat(ANTHROPIC_INGRESS));
  router.get('/v1/models', (ctx) => {
    ctx.body = listModels(gateway.config, ctx.headers);
  });
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });

  // Every answer, operational routes and errors included, carries the id its log lines carry.
  app.use(async (ctx, next) => {
    ctx.state.requestId = newRequestId();
    ctx.set('x-request-id', ctx.state.requestId as string);
    await next();
  });
  // Last line of defence: an exception outside the chat pipeline still answers in JSON, without details.
  app.use(async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      gateway.log.error({ err: error, path: ctx.path }, 'unexpected data plane failure');
      if (ctx.res.headersSent) return void ctx.res.destroy();
      const envelope = OPENAI_INGRESS.codec.encodeError(gatewayError('server', 'internal gateway error', { code: 'internal_error' }));
      ctx.status = envelope.status;
      ctx.set(envelope.headers);
      ctx.body = envelope.body;
    }
  });
  app.use(router.routes());
  // Anything else: 404 (or 405) in the protocol the client evidently speaks.
  app.use((ctx) => {
    const ingress = ctx.headers['anthropic-version'] !== undefined || ctx.path.endsWith('/messages') ? ANTHROPIC_INGRESS : OPENAI_INGRESS;
    const known = ['/v1/chat/completions', '/v1/messages', '/v1/models', '/healthz'].includes(ctx.path);
    if (known) ctx.set('allow', ctx.path.startsWith('/v1/models') || ctx.path === '/healthz' ? 'GET' : 'POST');
    const error = known
      ? gatewayError('invalid_request', `method ${ctx.method} is not allowed on ${ctx.path}`, { status: 405, code: 'method_not_allowed' })
      : gatewayError('not_found', `no route for ${ctx.method} ${ctx.path} on this gateway`, { code: 'route_not_found' });
    const envelope = ingress.codec.encodeError(error);
    ctx.status = envelope.status;
    ctx.set(envelope.headers);
    ctx.body = envelope.body;
  });
  app.on('error', (error: unknown) => gateway.log.warn({ err: error }, 'data plane connection error'));
  return app;
}
