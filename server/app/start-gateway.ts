import { createServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createAdminApp } from '../admin/admin-app.ts';
import { ConfigError } from '../config/config-error.ts';
import { isLoopback } from '../config/loopback.ts';
import type { RuntimeConfig } from '../config/runtime-config.ts';
import { startDemoUpstream, type DemoUpstream } from '../demo/demo-upstream.ts';
import { createDataPlaneApp } from '../http/data-plane-app.ts';
import type { Logger } from '../observability/logger.ts';
import type { RequestObserver } from '../observability/request-record.ts';
import { RoutingTable } from '../gateway/routing-table.ts';
import { createGovernance, type LocalGovernance } from '../governance/governance.ts';
import type { LaneFacts } from '../observability/genai-attributes.ts';
import { GatewayMetrics } from '../observability/metrics.ts';
import { startOtlpExport } from '../observability/otlp-export.ts';
import { RequestLog } from '../observability/request-log.ts';
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
  /** The Prometheus registry and its JSON form (for aggregation across workers); absent when metrics are off. */
  readonly metrics?: GatewayMetrics;
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
  /** Observers of finished requests besides the configured ones (tests, embedders). */
  readonly observers?: readonly RequestObserver[];
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
  // The registry also feeds OTLP metrics, so it exists when either exit is on.
  const metrics = config.metrics.enabled || config.otlp !== undefined ? new GatewayMetrics({ routing: () => routing.snapshot(), translations: () => translations.snapshot() }) : undefined;
  const otlp = config.otlp === undefined ? undefined : startOtlpExport({ settings: config.otlp, lanes: laneFacts(config), ...(metrics !== undefined && { registry: metrics.registry }), log: options.log });
  const observers: RequestObserver[] = [
    ...(options.log.isLevelEnabled('info') ? [new RequestLog(options.log)] : []),
    ...(metrics === undefined ? [] : [metrics.observer]),
    ...(otlp?.observer === undefined ? [] : [otlp.observer]),
    ...(options.observers ?? []),
  ];
  const dataServer = createServer({ keepAlive: true, requestTimeout: 0 }, createDataPlaneApp({
    config, routing, dispatchers, clock, log: options.log, translations, observers, ...(governance !== undefined && { governance }),
  }, { ...(metrics !== undefined && config.metrics.enabled && { metrics }) }).callback());
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
    await otlp?.shutdown();
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
  return { config, routing, translations, ...(governance !== undefined && { governance }), ...(metrics !== undefined && { metrics }), dataUrl, adminUrl, close };
}

/** Upstream model and protocol of each configured lane, for the attempt spans. */
function laneFacts(config: RuntimeConfig): (name: string) => LaneFacts | undefined {
  return (name) => {
    const lane = config.models.get(name);
    return lane === undefined ? undefined : { upstreamModel: lane.upstreamModel, protocol: lane.provider.protocol };
  };
}
