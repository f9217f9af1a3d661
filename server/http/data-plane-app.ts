import Router, { type RouterMiddleware } from '@koa/router';
import Koa from 'koa';
import { addAuthTokenRoutes, AUTH_TOKEN_PATH } from '../auth/auth-routes.ts';
import type { SelfServe } from '../auth/self-serve.ts';
import type { Readiness } from '../app/readiness.ts';
import { gatewayError, type GatewayError } from '../ir/index.ts';
import type { LiveGateway } from '../gateway/gateway-context.ts';
import { INGRESS } from '../gateway/ingress.ts';
import { PROTOCOLS } from '../protocols/registry.ts';
import { guessProtocol } from './guess-protocol.ts';
import { modelNotFound } from '../gateway/resolve-model.ts';
import { modelAllowed } from '../governance/model-allow-list.ts';
import { modelNotAllowed } from '../governance/refusals.ts';
import type { StatsSnapshot } from '../observability/stats-snapshot.ts';
import { listModels, modelIdOf, modelListShape, retrieveModel, type ModelListShape } from './list-models.ts';
import { routeKey, type KeyNeed, type RouteKey } from './route-key.ts';
import { statsForKey } from './stats-for-key.ts';
import { requestIdFor } from './request-id.ts';
import { OPERATION_HANDLERS } from './operation-handlers.ts';

/** The operational routes' sources beyond the pipeline's own context. */
export interface DataPlaneExtras {
  /** GET /metrics (Prometheus text); absent when metrics are off. */
  readonly metrics?: { readonly contentType: string; render(): Promise<string> };
  /** Self-serve keys at /auth/token; absent: the route answers that they are not enabled. */
  readonly selfServe?: SelfServe;
  /** What GET /readyz reports; absent: ready whenever it serves. */
  readonly readiness?: Readiness;
  /**
   * GET /stats: the gateway's snapshot (built by the main thread, which a worker asks); undefined
   * when it could not be had in time. Absent: the route is not served.
   */
  readonly stats?: { snapshot(): Promise<StatsSnapshot | undefined> };
}

/**
 * The data plane (default :8080): one route family per wire protocol, plus the operational routes
 * and /auth/token (self-serve keys; it says it is off when `extras.selfServe` is undefined).
 */
export function createDataPlaneApp(live: LiveGateway, extras: DataPlaneExtras = {}): Koa {
  const app = new Koa();
  const router = new Router();

  // Every protocol's routes, from the registry (each folder's index.ts declares its own), in
  // registry order; a route whose path says it is not its request (Gemini's `:action` names the
  // method) hands over to the next route on the same pattern.
  for (const protocol of PROTOCOLS) {
    for (const route of protocol.routes) {
      const serve = OPERATION_HANDLERS[route.operation];
      if (serve === undefined) continue;
      const handle: RouterMiddleware = async (ctx, next) => {
        // Path parameters arrive percent-decoded from the router.
        const origin = route.origin === undefined ? {} : route.origin(ctx.params, ctx.query);
        if (origin === undefined) return next();
        ctx.respond = false; // the handler writes the response itself
        await serve(live.current, ctx.req, ctx.res, { protocol: protocol.id, origin, query: ctx.querystring, requestId: ctx.state.requestId as string });
      };
      if (route.method === 'GET') router.get(route.path, handle);
      else router.post(route.path, handle);
    }
  }
  // With governance on, the operational routes that tell about the deployment can ask for a key
  // too (`models_require_key`, `metrics.require_key`, always for /stats); a refusal is a 401 in the
  // client's shape (answered here: undefined comes back).
  const keyed = async (ctx: Koa.Context, need: KeyNeed): Promise<Extract<RouteKey, { key: unknown }> | undefined> => {
    const access = await routeKey(live.current, ctx.headers, ctx.querystring, need);
    if (!('refusal' in access)) return access;
    answerError(ctx, access.refusal);
    return undefined;
  };
  // The names clients may send and the operations each serves (http/list-models.ts), narrowed to
  // the key's `models` allow-list (a key presented where none is required narrows it too).
  // `/v1/models` answers in the shape of the SDK asking: Anthropic's (anthropic-version), Gemini's
  // (x-goog-api-key: @google/genai lists under /v1 too), OpenAI's otherwise; `/v1beta` is Gemini's.
  for (const version of ['v1', 'v1beta']) {
    const shape = (ctx: Koa.Context): ModelListShape => (version === 'v1beta' ? 'gemini' : modelListShape(ctx.headers));
    router.get(`/${version}/models`, async (ctx) => {
      const { config } = live.current;
      const access = await keyed(ctx, config.modelsRequireKey ? 'required' : 'optional');
      if (access !== undefined) ctx.body = listModels(config, shape(ctx), access.key);
    });
    router.get(`/${version}/models/:id`, async (ctx) => {
      const { config } = live.current;
      const access = await keyed(ctx, config.modelsRequireKey ? 'required' : 'optional');
      if (access === undefined) return;
      const id = String(ctx.params.id);
      const name = modelIdOf(shape(ctx), id);
      const entry = retrieveModel(config, shape(ctx), id);
      if (entry === undefined) answerError(ctx, modelNotFound(id));
      else if (!modelAllowed(access.key, name)) answerError(ctx, modelNotAllowed(name, access.key?.models ?? []).error);
      else ctx.body = entry;
    });
  }
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
      if ((await keyed(ctx, live.current.config.metrics.requireKey ? 'required' : 'none')) === undefined) return;
      ctx.body = await metrics.render();
      ctx.type = metrics.contentType;
    });
  }
  // The snapshot /metrics sits beside: with governance on it needs a key, and shows only the pools
  // that key may use (the admin plane's /stats keeps the whole of it, key counts included).
  const { stats } = extras;
  if (stats !== undefined) {
    router.get('/stats', async (ctx) => {
      const access = await keyed(ctx, 'required');
      if (access === undefined) return;
      const snapshot = await stats.snapshot();
      ctx.set('cache-control', 'no-store');
      if (snapshot === undefined) answerError(ctx, gatewayError('unavailable', 'the snapshot could not be read in time; retry', { code: 'stats_unavailable' }));
      else ctx.body = statsForKey(snapshot, access.key);
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
      live.current.log.error({ err: error, path: ctx.path }, 'unexpected data plane failure');
      if (ctx.res.headersSent) return void ctx.res.destroy();
      answerError(ctx, gatewayError('server', 'internal gateway error', { code: 'internal_error' }));
    }
  });
  app.use(router.routes());
  const allowed = allowedMethods({ metrics: metrics !== undefined, stats: stats !== undefined });
  // Anything else: 404 (or 405) in the protocol the client evidently speaks.
  app.use((ctx) => {
    const allow = allowed.get(ctx.path);
    const known = allow !== undefined;
    if (known) ctx.set('allow', allow);
    const error = known
      ? gatewayError('invalid_request', `method ${ctx.method} is not allowed on ${ctx.path}`, { status: 405, code: 'method_not_allowed' })
      : gatewayError('not_found', `no route for ${ctx.method} ${ctx.path} on this gateway`, { code: 'route_not_found' });
    answerError(ctx, error);
  });
  app.on('error', (error: unknown) => live.current.log.warn({ err: error }, 'data plane connection error'));
  return app;
}

/** An error answered in the protocol the client evidently speaks (its path and headers say which). */
function answerError(ctx: Koa.Context, error: GatewayError): void {
  const envelope = INGRESS[guessProtocol(ctx.path, ctx.headers)].codec.encodeError(error);
  ctx.status = envelope.status;
  ctx.set(envelope.headers);
  ctx.body = envelope.body;
}

/** The `Allow` header of each fixed path the data plane serves: the protocols' routes and the operational ones. */
function allowedMethods(served: { metrics: boolean; stats: boolean }): ReadonlyMap<string, string> {
  const methods = new Map<string, Set<string>>();
  const add = (path: string, method: string) => methods.set(path, (methods.get(path) ?? new Set()).add(method));
  for (const protocol of PROTOCOLS) {
    for (const route of protocol.routes) if (!route.path.includes(':') && OPERATION_HANDLERS[route.operation] !== undefined) add(route.path, route.method);
  }
  for (const path of ['/v1/models', '/v1beta/models', '/healthz', '/readyz', ...(served.metrics ? ['/metrics'] : []), ...(served.stats ? ['/stats'] : [])])
    add(path, 'GET');
  add(AUTH_TOKEN_PATH, 'GET');
  add(AUTH_TOKEN_PATH, 'POST');
  return new Map([...methods].map(([path, set]) => [path, [...set].sort().join(', ')]));
}
