import { createServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createAdminApp } from '../admin/admin-app.ts';
import type { IssuerTimings } from '../auth/oidc-issuer.ts';
import { ConfigError } from '../config/config-error.ts';
import { isLoopback } from '../config/loopback.ts';
import type { RuntimeConfig } from '../config/runtime-config.ts';
import { startDemoUpstream, type DemoUpstream } from '../demo/demo-upstream.ts';
import { createDataPlaneApp } from '../http/data-plane-app.ts';
import type { Logger } from '../observability/logger.ts';
import { RoutingTable } from '../gateway/routing-table.ts';
import { createGovernance, type LocalGovernance } from '../governance/governance.ts';
import { TranslationStats } from '../observability/translation-stats.ts';
import { SYSTEM_CLOCK, type Clock } from '../routing/clock.ts';
import { Dispatchers } from '../upstream/dispatchers.ts';
import { usesDemoUpstream, withDemoUpstream } from './demo-wiring.ts';
import { closeServer, listen } from './listen.ts';

export interface RunningGateway {
  readonly config: RuntimeConfig;
  /** Breaker and concurrency state, readable for /stats and tests. */
  readonly routing: RoutingTable;
  readonly translations: TranslationStats;
  readonly governance?: LocalGovernance;
  /** e.g. http://127.0.0.1:8080 */
  readonly dataUrl: string;
  readonly adminUrl: string;
  close(): Promise<void>;
}

export interface StartOptions {
  readonly log: Logger;
  /** Tests inject a clock to drive breaker time. */
  readonly clock?: Clock;
  readonly validateAdminResponses?: boolean;
  /** OIDC discovery and JWKS timings for self-serve keys; tests shorten them. */
  readonly oidcTimings?: IssuerTimings;
}

/** Starts the demo upstream (if the config uses it), the data plane and the admin plane. */
export async function startGateway(loaded: RuntimeConfig, options: StartOptions): Promise<RunningGateway> {
  if (!isLoopback(loaded.adminListen.host) && (loaded.adminToken === undefined || loaded.adminTls === undefined)) {
    throw new ConfigError([{
      file: loaded.source,
      path: 'admin_listen',
      message: `the admin plane would listen on ${loaded.adminListen.host}, beyond loopback, with no admin token or without TLS: set GATEWAY_ADMIN_TOKEN or admin_token, and admin_tls`,
    }]);
  }
  let demo: DemoUpstream | undefined;
  let config = loaded;
  if (usesDemoUpstream(loaded)) {
    demo = await startDemoUpstream();
    config = withDemoUpstream(loaded, demo.url);
  }
  const startedAt = Date.now();
  const clock = options.clock ?? SYSTEM_CLOCK;
  const dispatchers = new Dispatchers();
  const routing = new RoutingTable(config, clock);
  const translations = new TranslationStats();
  // Opened before anything listens: a locked, unreadable or newer store stops the start.
  const governance = config.dbPath === undefined ? undefined : createGovernance({ dbPath: config.dbPath, secret: config.governanceSecret, clock, log: options.log });
  const selfServe = config.auth === undefined
    ? undefined
    : (await import('../auth/self-serve.ts')).createSelfServe(config, governance, { log: options.log, ...(options.oidcTimings !== undefined && { timings: options.oidcTimings }) });
  const dataServer = createServer({ keepAlive: true, requestTimeout: 0 }, createDataPlaneApp({
    config, routing, dispatchers, clock, log: options.log, translations, ...(governance !== undefined && { governance }),
  }, selfServe).callback());
  const adminApp = await createAdminApp({
    config, startedAt, log: options.log, ...(governance !== undefined && { governance }),
    ...(options.validateAdminResponses !== undefined && { validateResponses: options.validateAdminResponses }),
  });
  const adminServer = config.adminTls === undefined
    ? createServer(adminApp.callback())
    : createHttpsServer({
      cert: config.adminTls.cert,
      key: config.adminTls.key,
      // mTLS: with a client CA, a connection without a certificate it signed is refused in the handshake.
      ...(config.adminTls.clientCa !== undefined && { ca: config.adminTls.clientCa, requestCert: true, rejectUnauthorized: true }),
    }, adminApp.callback());
  // Servers stop taking requests and finish the ones in flight; then spend and last-use are flushed.
  const close = async () => {
    await Promise.all([closeServer(dataServer), closeServer(adminServer)]);
    await dispatchers.close();
    await governance?.close();
    await demo?.close();
  };
  let dataUrl: string;
  let adminUrl: string;
  try {
    dataUrl = await listen(dataServer, config.listen);
    adminUrl = await listen(adminServer, config.adminListen);
  } catch (error) {
    await close(); // a port in use: release whatever did start
    throw error;
  }
  options.log.info({ dataUrl, adminUrl, configVersion: config.configVersion, source: config.source, adminAuth: config.adminToken !== undefined }, 'gateway started');
  return { config, routing, translations, ...(governance !== undefined && { governance }), dataUrl, adminUrl, close };
}
