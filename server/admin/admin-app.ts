import type { IncomingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';
import formats from 'ajv-formats';
import Koa from 'koa';
import { OpenAPIBackend, type Context as OperationContext, type Document } from 'openapi-backend';
import type { components } from '../../generated/admin-api.ts';
// An import, not a file read: the bundler inlines it into the single executable (make binary).
import shippedSpec from '../../spec/openapi.json' with { type: 'json' };
import type { RuntimeConfig } from '../config/runtime-config.ts';
import type { ConfigControl } from '../app/config-control.ts';
import { memoryConfigHistory, type ConfigHistory } from '../config/config-history.ts';
import type { KeyAdmin } from '../governance/governance.ts';
import type { Logger } from '../shared/logger.ts';
import { hasAdminToken } from './admin-token.ts';
import { configOperations } from './config-operations.ts';
import { getConfigVersion } from './config-version.ts';
import { hookView } from './hooks-view.ts';
import { infoView } from './info.ts';
import { keyOperations } from './keys.ts';
import type { LiveState } from './live-state.ts';
import { operationId } from './operation-id.ts';
import { readJsonBody } from './read-json-body.ts';
import { readYamlBody } from './read-yaml-body.ts';
import { errorBody, errorReply, type OperationReply, type Reply } from './reply.ts';
import { statsView } from './stats-view.ts';
import { storeBackup } from './store-backup.ts';
import { teamOperations } from './teams.ts';
import type { UsageParams } from './usage-query.ts';
import { usageOperations } from './usage.ts';
import { validationMessage } from './validation-message.ts';

export interface AdminOptions {
  /** The configuration the gateway started with (the admin token, the admin plane's own settings). */
  readonly config: RuntimeConfig;
  /** The running configuration and its changes (reload, validate, apply); current() is what info and /stats show. */
  readonly configControl?: ConfigControl;
  /** Where applied configurations are kept (the store's, when there is one); default: in memory. */
  readonly configHistory?: ConfigHistory;
  readonly startedAt: number;
  readonly log: Logger;
  /** Check every answer against the spec too (tests): a handler that drifts from the spec fails loudly. */
  readonly validateResponses?: boolean;
  /** The governance facade for the key operations; absent when no db_path is configured (they answer 409). */
  readonly governance?: KeyAdmin;
  /** Routing, request and hook state, read by GET /stats and the hooks list. */
  readonly live: LiveState;
}

/** The admin plane (default 127.0.0.1:8081), routed and validated by spec/openapi.json. */
export async function createAdminApp(options: AdminOptions): Promise<Koa> {
  // The imported document is served as is; routing works on a copy that gets operationIds added.
  const spec = structuredClone(shippedSpec) as unknown as Document;
  for (const [path, item] of Object.entries(spec.paths ?? {})) {
    for (const method of ['get', 'put', 'post', 'delete', 'patch'] as const) {
      const operation = (item as Record<string, { operationId?: string } | undefined>)[method];
      if (operation !== undefined) operation.operationId = operationId(method, path);
    }
  }
  const api = new OpenAPIBackend({
    definition: spec,
    strict: true,
    quick: true,
    // The spec's date-time fields are checked (responses, in tests) instead of ignored with a warning.
    customizeAjv: (ajv) => formats.default(ajv, ['date-time', 'date']),
  });
  // openapi-backend can only check OpenAPI 3.0 documents; the 3.1 spec is linted by codegen instead.
  api.validateDefinition = () => spec;
  const token = options.config.adminToken;
  const hasToken = (headers: IncomingHttpHeaders) => token === undefined || hasAdminToken(headers, token);
  const authorized = (c: OperationContext) => hasToken(c.request.headers as IncomingHttpHeaders);
  api.registerSecurityHandler('adminToken', authorized);
  api.registerSecurityHandler('bearerAuth', authorized);
  // What serves new requests now (it moves with every applied reload).
  const running = () => options.configControl?.current() ?? options.config;
  const keys = keyOperations({ keys: options.governance, targets: running });
  const usage = usageOperations(options.governance);
  const teams = teamOperations(options.governance);
  const configs =
    options.configControl === undefined
      ? undefined
      : configOperations({ control: options.configControl, history: options.configHistory ?? memoryConfigHistory(), log: options.log });
  // Without a ConfigControl (an admin app built on its own, in tests) the configuration operations are absent.
  const configured =
    <A extends unknown[], R>(handler: ((...args: A) => R) | undefined) =>
    (...args: A) =>
      handler === undefined ? errorReply(404, 'not_found', 'this gateway cannot change its configuration') : handler(...args);
  api.register({
    getApiV1AdminInfo: (): Reply => ({ status: 200, body: infoView(running(), options.startedAt) }),
    // The document as written: without the operationIds derived above, whose absence keeps the
    // three client generators' names in agreement.
    getApiV1AdminOpenapiJson: (): Reply => ({ status: 200, body: shippedSpec }),
    getApiV1AdminConfigVersion: () => getConfigVersion(running()),
    getApiV1AdminConfig: configured(configs?.getApiV1AdminConfig),
    postApiV1AdminConfigReload: configured(configs?.postApiV1AdminConfigReload),
    postApiV1AdminConfigValidate: (c: OperationContext) => configured(configs?.postApiV1AdminConfigValidate)(c.request.requestBody as string),
    postApiV1AdminConfigApply: (c: OperationContext) => configured(configs?.postApiV1AdminConfigApply)(c.request.requestBody as string),
    getApiV1AdminConfigVersions: configured(configs?.getApiV1AdminConfigVersions),
    getApiV1AdminConfigVersionsV: (c: OperationContext) => configured(configs?.getApiV1AdminConfigVersionsV)(Number(c.request.params.v)),
    getApiV1AdminConfigDiff: (c: OperationContext) => configured(configs?.getApiV1AdminConfigDiff)(numberQuery(c, ['from', 'to'])),
    postApiV1AdminConfigRollback: (c: OperationContext) =>
      configured(configs?.postApiV1AdminConfigRollback)(c.request.requestBody as { version?: number } | undefined),
    getApiV1AdminKeys: () => keys.getApiV1AdminKeys(),
    postApiV1AdminKeys: (c: OperationContext) => keys.postApiV1AdminKeys(c.request.requestBody as components['schemas']['KeyCreate']),
    getApiV1AdminKeysId: (c: OperationContext) => keys.getApiV1AdminKeysId(pathId(c)),
    patchApiV1AdminKeysId: (c: OperationContext) => keys.patchApiV1AdminKeysId(pathId(c), c.request.requestBody as components['schemas']['KeyUpdate']),
    deleteApiV1AdminKeysId: (c: OperationContext) => keys.deleteApiV1AdminKeysId(pathId(c)),
    postApiV1AdminKeysIdRotate: (c: OperationContext) =>
      keys.postApiV1AdminKeysIdRotate(pathId(c), c.request.requestBody as components['schemas']['KeyRotate'] | undefined),
    getApiV1AdminKeysIdUsage: (c: OperationContext) => usage.getApiV1AdminKeysIdUsage(pathId(c), c.request.query as UsageParams),
    getApiV1AdminUsage: (c: OperationContext) => usage.getApiV1AdminUsage(c.request.query as UsageParams),
    getApiV1AdminTeams: () => teams.getApiV1AdminTeams(),
    postApiV1AdminStoreBackup: () => storeBackup(options.config.dbPath, options.log, options.config.databaseUrl !== undefined),
    getApiV1AdminHooks: async (): Promise<OperationReply<'/api/v1/admin/hooks', 'get'>> => {
      await options.live.refresh?.();
      return { status: 200, body: { data: options.live.hooks.list().map(hookView) } };
    },
    getStats: async (): Promise<OperationReply<'/stats', 'get'>> => {
      await options.live.refresh?.(); // the other workers' counts first: one moment's view
      return { status: 200, body: await statsView({ config: running(), startedAt: options.startedAt, live: options.live, keys: options.governance }) };
    },
    unauthorizedHandler: () => errorReply(401, 'unauthorized', 'a valid admin token is required (x-admin-token or Authorization: Bearer)'),
    validationFail: (c: OperationContext) => errorReply(400, 'invalid_request', validationMessage(c.validation.errors ?? [])),
    notFound: () => errorReply(404, 'not_found', 'no such admin operation'),
    // A 405 says which methods the path does have (RFC 9110, 15.5.6).
    methodNotAllowed: (c: OperationContext): Reply => ({
      ...errorReply(405, 'method_not_allowed', 'method not allowed on this path'),
      headers: { allow: allowedMethods(api, c) },
    }),
    // Data-plane operations in the spec are served on the data plane, not here.
    notImplemented: () => errorReply(404, 'not_found', 'this operation is served on the data plane'),
  });
  if (options.validateResponses === true) {
    api.register('postResponseHandler', (c: OperationContext) => {
      const reply = c.response as Reply;
      // A streamed body (the store backup's bytes) is not JSON to check.
      if (c.operation === undefined || reply.status >= 400 || reply.body instanceof Readable) return reply;
      const result = api.validateResponse(reply.body, c.operation, reply.status);
      if (result.errors) throw new Error(`admin response violates the spec: ${JSON.stringify(result.errors)}`);
      return reply;
    });
  }
  await api.init();

  const app = new Koa();
  app.use(async (ctx) => {
    const request = { method: ctx.method, path: ctx.path, query: ctx.querystring, headers: ctx.headers as Record<string, string | string[]> };
    // A body is read only for an operation that takes one, and only from a caller with the token
    // (the others get their 401 from openapi-backend without it being read).
    let body: Record<string, unknown> | string | undefined;
    const takes = api.router.matchOperation(request)?.requestBody;
    if (takes !== undefined && hasToken(ctx.headers)) {
      // A configuration comes as YAML text; every other body is a JSON object.
      const read = 'content' in takes && takes.content['application/yaml'] !== undefined ? await readYamlBody(ctx.req) : await readJsonBody(ctx.req);
      if (!read.ok) {
        ctx.status = read.status;
        if (read.status === 413) ctx.set('connection', 'close'); // the rest of the body is not worth reading
        ctx.body = errorBody(read.code, read.message);
        return;
      }
      body = 'text' in read ? read.text : read.value;
    }
    const reply = (await api.handleRequest({ ...request, ...(body !== undefined && { body }) })) as Reply;
    ctx.status = reply.status;
    if (reply.headers !== undefined) ctx.set(reply.headers);
    ctx.body = reply.body;
  });
  app.on('error', (error: unknown) => options.log.warn({ err: error }, 'admin plane error'));
  return app;
}

/** Integer query parameters (the spec checks their form first); absent ones are left out. */
function numberQuery<K extends string>(c: OperationContext, names: readonly K[]): Partial<Record<K, number>> {
  const out: Partial<Record<K, number>> = {};
  for (const name of names) {
    const value = c.request.query[name];
    if (value !== undefined) out[name] = Number(Array.isArray(value) ? value[0] : value);
  }
  return out;
}

/** The {id} path parameter; the spec makes it a required string, checked before any handler runs. */
function pathId(c: OperationContext): string {
  return String(c.request.params.id);
}

function allowedMethods(api: OpenAPIBackend, c: OperationContext): string {
  return ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].filter((method) => api.router.matchOperation({ ...c.request, method }) !== undefined).join(', ');
}
