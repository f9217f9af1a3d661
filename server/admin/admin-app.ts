import { readFileSync } from 'node:fs';
import Koa from 'koa';
import { OpenAPIBackend, type Context as OperationContext, type Document } from 'openapi-backend';
import type { RuntimeConfig } from '../config/runtime-config.ts';
import type { Logger } from '../observability/logger.ts';
import { hasAdminToken } from './admin-token.ts';
import { infoView } from './info.ts';
import { operationId } from './operation-id.ts';

const SPEC_FILE = new URL('../../spec/openapi.json', import.meta.url);

export interface AdminOptions {
  readonly config: RuntimeConfig;
  readonly startedAt: number;
  readonly log: Logger;
  /** Check every answer against the spec too (tests): a handler that drifts from the spec fails loudly. */
  readonly validateResponses?: boolean;
}

interface Reply {
  readonly status: number;
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

const errorReply = (status: number, code: string, message: string): Reply => ({ status, body: { error: { code, message } } });

/** The admin plane (default 127.0.0.1:8081), routed and validated by spec/openapi.json. */
export async function createAdminApp(options: AdminOptions): Promise<Koa> {
  const spec = JSON.parse(readFileSync(SPEC_FILE, 'utf8')) as Document;
  for (const [path, item] of Object.entries(spec.paths ?? {})) {
    for (const method of ['get', 'put', 'post', 'delete', 'patch'] as const) {
      const operation = (item as Record<string, { operationId?: string } | undefined>)[method];
      if (operation !== undefined) operation.operationId = operationId(method, path);
    }
  }
  const api = new OpenAPIBackend({ definition: spec, strict: true, quick: true });
  // openapi-backend can only check OpenAPI 3.0 documents; the 3.1 spec is linted by codegen instead.
  api.validateDefinition = () => spec;
  const token = options.config.adminToken;
  const authorized = (c: OperationContext) => token === undefined || hasAdminToken(c.request.headers as Record<string, string>, token);
  api.registerSecurityHandler('adminToken', authorized);
  api.registerSecurityHandler('bearerAuth', authorized);
  api.register({
    getApiV1AdminInfo: (): Reply => ({ status: 200, body: infoView(options.config, options.startedAt) }),
    unauthorizedHandler: () => errorReply(401, 'unauthorized', 'a valid admin token is required (x-admin-token or Authorization: Bearer)'),
    validationFail: (c: OperationContext) => errorReply(400, 'invalid_request', (c.validation.errors ?? []).map((e) => `${e.instancePath || 'request'} ${e.message ?? ''}`.trim()).join('; ')),
    notFound: () => errorReply(404, 'not_found', 'no such admin operation'),
    // A 405 says which methods the path does have (RFC 9110, 15.5.6).
    methodNotAllowed: (c: OperationContext): Reply => ({ ...errorReply(405, 'method_not_allowed', 'method not allowed on this path'), headers: { allow: allowedMethods(api, c) } }),
    // Data-plane operations in the spec are served on the data plane, not here.
    notImplemented: () => errorReply(404, 'not_found', 'this operation is served on the data plane'),
  });
  if (options.validateResponses === true) {
    api.register('postResponseHandler', (c: OperationContext) => {
      const reply = c.response as Reply;
      if (c.operation === undefined || reply.status >= 400) return reply;
      const result = api.validateResponse(reply.body, c.operation, reply.status);
      if (result.errors) throw new Error(`admin response violates the spec: ${JSON.stringify(result.errors)}`);
      return reply;
    });
  }
  await api.init();

  const app = new Koa();
  app.use(async (ctx) => {
    const reply = (await api.handleRequest({
      method: ctx.method,
      path: ctx.path,
      query: ctx.querystring,
      headers: ctx.headers as Record<string, string | string[]>,
    })) as Reply;
    ctx.status = reply.status;
    if (reply.headers !== undefined) ctx.set(reply.headers);
    ctx.body = reply.body;
  });
  app.on('error', (error: unknown) => options.log.warn({ err: error }, 'admin plane error'));
  return app;
}

function allowedMethods(api: OpenAPIBackend, c: OperationContext): string {
  return ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].filter((method) => api.router.matchOperation({ ...c.request, method }) !== undefined).join(', ');
}
