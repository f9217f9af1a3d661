// An admin plane on a loopback port over a real governance store (a SQLite file), with a
// configuration that has models, a pool and teams, for the key, usage and team tests. Answers are
// checked against spec/openapi.json (validateResponses), so a handler that drifts from the spec fails.
import { createServer, type Server } from 'node:http';
import { expect } from 'vitest';
import { createAdminApp } from '../../server/admin/admin-app.ts';
import { closeServer, listen } from '../../server/app/listen.ts';
import { loadConfigText } from '../../server/config/load-config.ts';
import type { RuntimeConfig } from '../../server/config/runtime-config.ts';
import { RoutingTable } from '../../server/gateway/routing-table.ts';
import type { KeyAdmin } from '../../server/governance/governance.ts';
import { Hooks } from '../../server/hooks/hooks.ts';
import { RequestStats } from '../../server/observability/request-stats.ts';
import { RequestsInFlight } from '../../server/observability/requests-in-flight.ts';
import { SYSTEM_CLOCK } from '../../server/shared/clock.ts';
import { SILENT } from '../governance/support.ts';
import { createLogger } from '../../server/shared/logger.ts';

/** Two models, a pool over both, two teams. */
export const ADMIN_YAML = `admin_listen: 127.0.0.1:0
log_level: silent
models:
  cheap: { provider: demo, model: demo-echo }
  smart: { provider: demo-anthropic, model: demo-echo }
pools:
  chat: { members: [ { model: cheap }, { model: smart } ] }
teams:
  research: { child_default: { budget_cents: 100, rpm: 10 } }
  platform: { child_default: { budget_cents: 100, rpm: 10 } }
`;

export interface AdminServer {
  readonly url: string;
  readonly config: RuntimeConfig;
  close(): Promise<void>;
}

export async function startAdmin(governance: KeyAdmin | undefined, yaml = ADMIN_YAML, env: NodeJS.ProcessEnv = {}): Promise<AdminServer> {
  const config = loadConfigText(yaml, '/virtual/config.yaml', '/virtual', { env });
  const live = {
    routing: new RoutingTable(config, SYSTEM_CLOCK),
    clock: SYSTEM_CLOCK,
    requests: new RequestStats(),
    inFlight: new RequestsInFlight(),
    hooks: new Hooks([], { log: SILENT }),
  };
  const app = await createAdminApp({
    config,
    startedAt: Date.now(),
    log: process.env.ADMIN_DEBUG ? createLogger('debug') : SILENT,
    validateResponses: true,
    live,
    ...(governance !== undefined && { governance }),
  });
  const server: Server = createServer(app.callback());
  const url = await listen(server, config.adminListen);
  return { url, config, close: () => closeServer(server) };
}

/** A JSON request to the admin plane; `body` as text is sent as it is (malformed on purpose). */
export function send(method: string, url: string, body?: unknown): Promise<Response> {
  if (body === undefined) return fetch(url, { method });
  return fetch(url, { method, headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) });
}

/** The answer is the admin API's error shape with this status and code; returns its message. */
export async function expectError(response: Response, status: number, code: string): Promise<string> {
  const body = (await response.json()) as { error: { code: string; message: string } };
  expect({ status: response.status, code: body.error?.code }, body.error?.message).toEqual({ status, code });
  expect(Object.keys(body)).toEqual(['error']);
  return body.error.message;
}

/** The answer's status is `status`; its JSON body. */
export async function expectOk<T>(response: Response, status = 200): Promise<T> {
  const text = await response.text();
  expect(response.status, text).toBe(status);
  return JSON.parse(text) as T;
}
