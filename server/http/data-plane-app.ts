import Router from '@koa/router';
import Koa from 'koa';
import { addAuthTokenRoutes, AUTH_TOKEN_PATH } from '../auth/auth-routes.ts';
import type { SelfServe } from '../auth/self-serve.ts';
import type { Readiness } from '../app/readiness.ts';
import { GatewayFailure, gatewayError, type ProtocolId } from '../ir/index.ts';
import type { RequestOrigin } from '../protocols/codec.ts';
import type { Gateway } from '../gateway/gateway-context.ts';
import { INGRESS } from '../gateway/ingress.ts';
import { countTokens } from '../gateway/count-tokens.ts';
import { geminiCountTokensModel, geminiRoute } from './gemini-route.ts';
import { guessProtocol } from './guess-protocol.ts';
import { listModels } from './list-models.ts';
import { requestIdFor } from './request-id.ts';
import { serveChat } from './serve-chat.ts';
import { serveOperation } from './serve-operation.ts';
import { embeddingsOperation } from '../operations/embeddings/embeddings-operation.ts';
import type { OperationDeclaration } from '../operations/operation.ts';

const OPENAI_EMBEDDINGS = embeddingsOperation('openai', {});

/** The operational routes' sources beyond the pipeline's own context. */
export interface DataPlaneExtras {
  /** GET /metrics (Prometheus text); absent when metrics are off. */
  readonly metrics?: { readonly contentType: string; render(): Promise<string> };
  /** Self-serve keys at /auth/token; absent: the route answers that they are not enabled. */
  readonly selfServe?: SelfServe;
  /** What GET /readyz reports; absent: ready whenever it serves. */
  readonly readiness?: Readiness;
}

/**
 * The data plane (default :8080): one route family per wire protocol, plus the operational routes
 * and /auth/token (self-serve keys; it says it is off when `extras.selfServe` is undefined).
 */
export function createDataPlaneApp(gateway: Gateway, extras: DataPlaneExtras = {}): Koa {
  const app = new Koa();
  const router = new Router();

  const chat = (ctx: Koa.Context, protocol: ProtocolId, origin: RequestOrigin) => {
    ctx.respond = false; // the pipeline writes the response itself
    return serveChat(gateway, ctx.req, ctx.res, { protocol, origin, query: ctx.querystring, requestId: ctx.state.requestId as string });
  };
  // Path parameters arrive percent-decoded from the router.
  const param = (ctx: Koa.Context, name: string) => String(ctx.params[name]);

  router.post('/v1/chat/completions', (ctx) => chat(ctx, 'openai', {}));
  router.post('/v1/responses', (ctx) => chat(ctx, 'responses', {}));
  router.post('/v1/messages', (ctx) => chat(ctx, 'anthropic', {}));
  // Input-token counts (Claude Code asks before each turn): routed like chat, nothing spent.
  const count = (ctx: Koa.Context, protocol: 'anthropic' | 'gemini', pathModel?: string) => {
    ctx.respond = false;
    return countTokens(gateway, ctx.req, ctx.res, { protocol, ...(pathModel !== undefined && { pathModel }), query: ctx.querystring, requestId: ctx.state.requestId as string });
  };
  router.post('/v1/messages/count_tokens', (ctx) => count(ctx, 'anthropic'));
  router.post('/:model/v1/messages/count_tokens', (ctx) => count(ctx, 'anthropic', param(ctx, 'model')));
  router.post('/:model/v1/messages', (ctx) => chat(ctx, 'anthropic', { pathModel: param(ctx, 'model') }));
  for (const version of ['v1beta', 'v1']) {
    router.post(`/${version}/models/:action`, async (ctx, next) => {
      const countModel = geminiCountTokensModel(param(ctx, 'action'));
      if (countModel !== undefined) return count(ctx, 'gemini', countModel);
      const route = geminiRoute(param(ctx, 'action'), ctx.query.alt);
      if (route === undefined) return next();
      await chat(ctx, 'gemini', route);
    });
  }
  router.post('/model/:modelId/converse', (ctx) => chat(ctx, 'bedrock', { pathModel: param(ctx, 'modelId'), pathStream: false }));
  router.post('/model/:modelId/converse-stream', (ctx) => chat(ctx, 'bedrock', { pathModel: param(ctx, 'modelId'), pathStream: true }));
  router.post('/v2/chat', (ctx) => chat(ctx, 'cohere', {}));
  // Operations other than chat go through the generic pipeline (operations/handle-operation.ts).
  const operation = (ctx: Koa.Context, protocol: ProtocolId, declaration: OperationDeclaration, origin: RequestOrigin = {}) => {
    ctx.respond = false;
    return serveOperation(gateway, ctx.req, ctx.res, { protocol, origin, declaration, query: ctx.querystring, requestId: ctx.state.requestId as string });
  };
  router.post('/v1/embeddings', (ctx) => operation(ctx, 'openai', OPENAI_EMBEDDINGS));
  // With governance on, the operational routes that tell about the deployment can ask for a key
  // too (`models_require_key`, `metrics.require_key`); a refusal is a 401 in the client's shape.
  const keyed = async (ctx: Koa.Context, required: boolean): Promise<boolean> => {
    const { governance } = gateway;
    if (!required || !gateway.config.governance || governance === undefined) return true;
    try {
      await governance.authenticate(ctx.headers, new URLSearchParams(ctx.querystring));
      return true;
    } catch (error) {
      if (!(error instanceof GatewayFailure)) throw error;
      const envelope = INGRESS[guessProtocol(ctx.path, ctx.headers)].codec.encodeError(error.error);
      ctx.status = envelope.status;
      ctx.set(envelope.headers);
      ctx.body = envelope.body;
      return false;
    }
  };
  router.get('/v1/models', async (ctx) => {
    if (await keyed(ctx, gateway.config.modelsRequireKey)) ctx.body = listModels(gateway.config, ctx.headers);
  });
  // Liveness: the process answers. Readiness: it should be sent traffic (not starting, not
  // draining, its store readable, every worker up); 503 with the reason otherwise.
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/readyz', (ctx) => {
    const notReady = extras.readiness?.notReady();
    ctx.set('cache-control', 'no-store');
    if (notReady === undefined) ctx.body = { status: 'ready' };
    else {
      ctx.status = 503;
      ctx.body = { status: 'not_ready', ...notReady };
    }
  });
  const { metrics } = extras;
  if (metrics !== undefined) {
    router.get('/metrics', async (ctx) => {
      if (!(await keyed(ctx, gateway.config.metrics.requireKey))) return;
      ctx.body = await metrics.render();
      ctx.type = metrics.contentType;
    });
  }
  addAuthTokenRoutes(router, extras.selfServe);

  // Every answer, operational routes and errors included, carries the id its log lines carry
  // (the client's own, when it sent a usable one).
  app.use(async (ctx, next) => {
    ctx.state.requestId = requestIdFor(ctx.headers);
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
      const envelope = INGRESS[guessProtocol(ctx.path, ctx.headers)].codec.encodeError(gatewayError('server', 'internal gateway error', { code: 'internal_error' }));
      ctx.status = envelope.status;
      ctx.set(envelope.headers);
      ctx.body = envelope.body;
    }
  });
  app.use(router.routes());
  // Anything else: 404 (or 405) in the protocol the client evidently speaks.
  app.use((ctx) => {
    const getRoutes = ['/v1/models', '/healthz', '/readyz', ...(metrics === undefined ? [] : ['/metrics'])];
    const known = ['/v1/chat/completions', '/v1/responses', '/v1/messages', '/v1/messages/count_tokens', '/v2/chat', '/v1/embeddings', AUTH_TOKEN_PATH, ...getRoutes].includes(ctx.path);
    if (known) ctx.set('allow', ctx.path === AUTH_TOKEN_PATH ? 'GET, POST' : getRoutes.includes(ctx.path) ? 'GET' : 'POST');
    const error = known
      ? gatewayError('invalid_request', `method ${ctx.method} is not allowed on ${ctx.path}`, { status: 405, code: 'method_not_allowed' })
      : gatewayError('not_found', `no route for ${ctx.method} ${ctx.path} on this gateway`, { code: 'route_not_found' });
    const envelope = INGRESS[guessProtocol(ctx.path, ctx.headers)].codec.encodeError(error);
    ctx.status = envelope.status;
    ctx.set(envelope.headers);
    ctx.body = envelope.body;
  });
  app.on('error', (error: unknown) => gateway.log.warn({ err: error }, 'data plane connection error'));
  return app;
}
