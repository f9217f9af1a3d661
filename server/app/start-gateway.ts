import { createServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { refuseForeignHosts } from '../admin/host-check.ts';
import type { IssuerTimings } from '../auth/oidc-issuer.ts';
import { ConfigError } from '../config/config-error.ts';
import type { RuntimeConfig, TlsMaterial } from '../config/runtime-config.ts';
import { startDemoUpstream, type DemoUpstream } from '../demo/demo-upstream.ts';
import type { Logger } from '../shared/logger.ts';
import type { RequestObserver } from '../observability/request-record.ts';
import { RoutingTable } from '../gateway/routing-table.ts';
import type { LocalGovernance, OwnerGovernance } from '../governance/governance.ts';
import { openGovernanceStore } from '../governance/open-governance-store.ts';
import { Hooks } from '../hooks/hooks.ts';
import { RequestStats } from '../observability/request-stats.ts';
import { statsSnapshot, type StatsSources } from '../observability/stats-snapshot.ts';
import type { LaneFacts } from '../observability/genai-attributes.ts';
import { GatewayMetrics } from '../observability/metrics.ts';
import { RequestLog } from '../observability/request-log.ts';
import type { TranslationStats } from '../observability/translation-stats.ts';
import { SYSTEM_CLOCK, type Clock } from '../shared/clock.ts';
import { RoutingMemory } from '../routing/routing-memory.ts';
import { Dispatchers } from '../upstream/dispatchers.ts';
import { MediaFetcher } from '../media/media-fetcher.ts';
import { usesDemoUpstream, withDemoUpstream } from './demo-wiring.ts';
import { createDataPlaneServer } from './data-plane-server.ts';
import { FleetView } from './fleet-view.ts';
import { ServingState } from './serving-state.ts';
import { resolveAdminAddress } from './admin-address.ts';
import { ConnectionGuard } from './connection-guard.ts';
import { inFlightSettled } from './in-flight-settled.ts';
import { listen } from './listen.ts';
import { lazyListener } from './lazy-listener.ts';
import { Readiness } from './readiness.ts';
import { WorkerPool } from './worker-pool.ts';
import { compactHeap } from '../shared/compact-heap.ts';
import { relayedLinesWriter } from './log-relay.ts';
import { secureContextOptions } from '../config/tls-material.ts';
import { renewServerTls, tlsRenewalProblems } from './tls-rotation.ts';
import { configSwitch } from './switch-config.ts';
import type { WorkerTelemetry } from './worker-protocol.ts';
import { GatewayConfigControl, type ConfigControl } from './config-control.ts';
import { readFileSync } from 'node:fs';
import { EMBEDDED_DEFAULT_CONFIG, EMBEDDED_DEFAULT_SOURCE } from '../config/embedded-default.ts';
import { CELL_FLOATS } from '../routing/breaker-cell.ts';
import type { Gateway } from '../gateway/gateway-context.ts';
import type { LoadOptions } from '../config/load-config.ts';
import type { AdminOptions } from '../admin/admin-app.ts';

export interface RunningGateway {
  readonly config: RuntimeConfig;
  /** Breaker and concurrency state (shared with the workers), readable for /stats and tests. */
  readonly routing: RoutingTable;
  readonly translations: TranslationStats;
  /** The embedded store's governance (db_path), synchronous; absent with database_url. */
  readonly governance?: LocalGovernance;
  /** The store whichever it is (db_path or database_url); absent when neither is set. */
  readonly store?: OwnerGovernance;
  /** Gate and webhook hooks with their counters. */
  readonly hooks: Hooks;
  /** The Prometheus registry and its JSON form (for aggregation across workers); absent when metrics are off. */
  readonly metrics?: GatewayMetrics;
  /** e.g. http://127.0.0.1:8080 */
  readonly dataUrl: string;
  readonly adminUrl: string;
  /** What each data-plane worker (the main thread is worker 1) has served. */
  workerTelemetry(): Promise<WorkerTelemetry[]>;
  /**
   * Stops: no new connections, requests in flight finish (kept-alive connections close as their
   * answers end) for up to `deadlineMs` (default `server.shutdown_timeout_ms`), then the rest are
   * cut; spend, records and webhooks are flushed either way. From the call on, GET /readyz says
   * 503; with `drainDelayMs` the gateway first keeps serving as usual that long (load balancers
   * see the 503 and stop sending traffic), then drains.
   */
  close(deadlineMs?: number, drainDelayMs?: number): Promise<CloseSummary>;
  /** What GET /readyz says (shared with every worker). */
  readonly readiness: Readiness;
  /**
   * SIGHUP: the data plane (main thread and every worker) and the admin plane serve these
   * certificates to new connections; connections already open are not touched. A set that cannot
   * be used (a key not matching, TLS turned on or off) is refused whole: the reasons are returned
   * and the old certificates keep serving.
   */
  renewTls(next: { readonly tls: TlsMaterial | undefined; readonly adminTls: TlsMaterial | undefined }): string[];
  /** The running configuration, changed while serving (SIGHUP, the admin plane's reload and apply). */
  readonly configControl: ConfigControl;
}

export interface CloseSummary {
  /** Connections, across every worker and both planes, still open at the deadline and cut. */
  readonly cut: number;
}

/** After a cut, how long requests may take to settle their spend and send their records. */
const SETTLE_AFTER_CUT_MS = 5000;
/** How often readiness reads the governance store. */
const STORE_CHECK_MS = 5000;

export interface StartOptions {
  readonly log: Logger;
  /** Tests inject a clock to drive breaker time. */
  readonly clock?: Clock;
  /**
   * Milliseconds since the epoch as governance reads them for what follows the calendar (budget
   * periods, expiry, a rotated secret's grace, ledger times); Date.now by default. Tests inject one
   * to cross a period or a grace through the data plane. Governance lives in the main thread, so
   * it holds whatever the worker count.
   */
  readonly wallClock?: () => number;
  readonly validateAdminResponses?: boolean;
  /** How long stopping waits for queued webhook events (default 5 s). */
  readonly hookFlushMs?: number;
  /** Observers of finished requests besides the configured ones (tests, embedders). */
  readonly observers?: readonly RequestObserver[];
  /** Overrides `workers:` (tests run in-process with 1, where an injected clock reaches the data plane). */
  readonly workers?: number;
  /** OIDC discovery and JWKS timings for self-serve keys; tests shorten them. */
  readonly oidcTimings?: IssuerTimings;
  /** How `admin_listen`'s name is resolved (default: the system's lookup); tests make a name resolve beyond loopback. */
  readonly lookupAdminHost?: Parameters<typeof resolveAdminAddress>[1];
  /**
   * The YAML the configuration was loaded from (default: the source file read again, or the
   * embedded default), and how it was loaded (environment, listen overrides): reloads load the
   * same way.
   */
  readonly configText?: string;
  readonly loadOptions?: LoadOptions;
}

/** Starts the demo upstream (if the config uses it), the data plane and the admin plane. */
export async function startGateway(loaded: RuntimeConfig, options: StartOptions): Promise<RunningGateway> {
  const admin = await resolveAdminAddress(loaded.adminListen.host, options.lookupAdminHost);
  if (!admin.loopback && (loaded.adminToken === undefined || loaded.adminTls === undefined)) {
    const resolved = admin.address === loaded.adminListen.host ? '' : ` (${admin.address})`;
    throw new ConfigError([
      {
        file: loaded.source,
        path: 'admin_listen',
        message: `the admin plane would listen on ${loaded.adminListen.host}${resolved}, beyond loopback, with no admin token or without TLS: set GATEWAY_ADMIN_TOKEN or admin_token, and admin_tls`,
      },
    ]);
  }
  let demo: DemoUpstream | undefined;
  // What start makes of a loaded configuration, and a reload of the next one: the admin plane
  // binds the address that was judged (not the name looked up a second time), demo providers
  // point at the demo upstream (started when first needed), and tests' worker count wins.
  const runnable = async (next: RuntimeConfig): Promise<RuntimeConfig> => {
    let out: RuntimeConfig = { ...next, adminListen: { host: admin.address, port: next.adminListen.port } };
    if (usesDemoUpstream(next)) {
      demo ??= await startDemoUpstream();
      out = withDemoUpstream(out, demo.url);
    }
    return options.workers === undefined ? out : { ...out, workers: options.workers };
  };
  const config = await runnable(loaded);
  /** The certificates each plane serves new connections now (SIGHUP and reloads renew them). */
  let served = { tls: config.tls, adminTls: config.adminTls };
  if (config.workers > 1 && options.clock !== undefined) throw new Error('an injected clock reaches the data plane only with workers: 1');
  const startedAt = Date.now();
  const clock = options.clock ?? SYSTEM_CLOCK;
  const dispatchers = new Dispatchers();
  const media = new MediaFetcher(config.mediaFetch);
  // Lane blocks count for every worker; the main thread is worker 1 (it serves too: one isolate fewer).
  const routingMemory = new RoutingMemory(config.workers, CELL_FLOATS);
  const startBlocks = routingMemory.share(RoutingTable.needs(config));
  routingMemory.adopt(startBlocks);
  // Opened before anything listens: a locked, unreadable or newer store stops the start.
  const opened = await openGovernanceStore(config, { clock, log: options.log, ...(options.wallClock !== undefined && { wallClock: options.wallClock }) });
  const governance = opened?.owner;
  // Before anything is admitted: a key with a team is held to its team's budget from the first request.
  governance?.setTeams(config.teamBudgets);
  const hooks = new Hooks(config.hooks, { log: options.log });
  const requests = new RequestStats();
  const serving = new ServingState(1, hooks.gates, requests);
  const readiness = new Readiness();
  let storeDown = false;
  const checkStore = async () => {
    try {
      await governance?.ping();
      if (storeDown) options.log.info('the governance store can be read again: ready');
      storeDown = false;
    } catch (error) {
      if (!storeDown) options.log.error({ err: error }, 'the governance store cannot be read: not ready');
      storeDown = true;
    }
    readiness.set('store_unreachable', storeDown);
  };
  const storeCheck = governance === undefined ? undefined : setInterval(() => void checkStore(), STORE_CHECK_MS).unref();
  const { translations, inFlight } = serving;
  // What the main thread's requests get; a configuration change replaces it whole (live.current).
  const live: { current: Gateway } = {
    current: {
      config,
      routing: new RoutingTable(config, clock, { blocks: startBlocks, worker: 1 }),
      dispatchers,
      media,
      clock,
      log: options.log,
      translations,
      observers: [],
      gates: hooks.gates,
      inFlight,
      ...(governance !== undefined && { governance }),
    },
  };
  // The other workers' own counts, added in when read (their records come here as they happen).
  let workers: WorkerPool | undefined;
  const fleet = new FleetView(async (withMetrics) => (await workers?.telemetry(withMetrics)) ?? []);
  // The registry also feeds OTLP metrics, so it exists when either exit is on.
  const metrics =
    config.metrics.enabled || config.otlp !== undefined
      ? new GatewayMetrics({
          routing: () => live.current.routing.snapshot(),
          translations: () => fleet.translations(translations.snapshot()),
          configVersion: () => live.current.config.configVersion,
        })
      : undefined;
  // Loaded only when configured: a gateway without `otlp:` never loads the OpenTelemetry SDK.
  const otlp =
    config.otlp === undefined
      ? undefined
      : (await import('../observability/otlp-export.ts')).startOtlpExport({
          settings: config.otlp,
          lanes: laneFacts(() => live.current.config),
          ...(metrics !== undefined && {
            registry: metrics.registry,
            readMetrics: async () => {
              await fleet.refresh(true);
              return metrics.getMetricsAsJSON(fleet.metrics());
            },
          }),
          log: options.log,
        });
  const metricsEndpoint =
    metrics === undefined || !config.metrics.enabled
      ? undefined
      : {
          get contentType() {
            return metrics.contentType;
          },
          render: async () => {
            await fleet.refresh(true);
            return metrics.render(fleet.metrics());
          },
        };
  // Every finished request is told to the log, metrics, traces, the caller's observers, /stats's
  // totals, then the webhooks. The main thread's requests are told here. A worker observes its own
  // requests for the log line, metrics and /stats's totals (read from it when asked) and posts its
  // records here only for the observers that must be one per gateway (mainOnly).
  const mainOnly: RequestObserver[] = [...(otlp?.observer === undefined ? [] : [otlp.observer]), ...(options.observers ?? [])];
  const observers: RequestObserver[] = [
    ...(options.log.isLevelEnabled('info') ? [new RequestLog(options.log)] : []),
    ...(metrics === undefined ? [] : [metrics.observer]),
    ...mainOnly,
    requests,
    ...hooks.webhooks,
  ];
  // Self-serve keys: the key issuer runs here, where governance lives (workers ask it by message).
  const keyIssuer =
    config.auth === undefined || governance === undefined || config.governanceSecret === undefined
      ? undefined
      : (await import('../auth/key-issuer.ts')).localKeyIssuer(governance, config.governanceSecret);
  const selfServe =
    config.auth === undefined
      ? undefined
      : (await import('../auth/self-serve.ts')).createSelfServe(config, keyIssuer, {
          log: options.log,
          ...(options.oidcTimings !== undefined && { timings: options.oidcTimings }),
        });
  live.current = { ...live.current, observers };
  // What GET /stats reads, on both planes: the routing state every thread shares, and the counts
  // made here (the other workers' in flight added in).
  const statsSources: StatsSources = {
    get routing() {
      return live.current.routing;
    },
    clock,
    requests: fleet.requests(requests),
    inFlight: {
      get current() {
        return fleet.inFlight(inFlight.current);
      },
    },
  };
  const statsEndpoint = {
    snapshot: async () => {
      await fleet.refresh();
      return statsSnapshot({ config: live.current.config, startedAt, sources: statsSources });
    },
  };
  const { server: dataServer, guard: dataGuard } = createDataPlaneServer(live, {
    ...(metricsEndpoint !== undefined && { metrics: metricsEndpoint }),
    stats: statsEndpoint,
    ...(selfServe !== undefined && { selfServe }),
    readiness,
  });
  serving.countRequestsOf(dataServer);
  const configControl = new GatewayConfigControl({
    loaded,
    running: config,
    text: options.configText ?? startText(loaded),
    loadOptions: options.loadOptions ?? {},
    runnable,
    log: options.log,
    ...(metrics !== undefined && { metrics: metrics.config }),
    tlsProblems: (next) => tlsRenewalProblems(served, next),
    switchTo: configSwitch({
      live,
      routingMemory,
      clock,
      workers: () => workers,
      served: () => served,
      renewTls: (next) => renewTls(next),
      ...(governance !== undefined && { governance }),
    }),
  });
  // Built on the admin plane's first request, not here: most gateways never get one (lazy-listener.ts).
  const adminOptions: AdminOptions = {
    config,
    configControl,
    startedAt,
    log: options.log,
    ...(opened !== undefined && { configHistory: opened.configHistory }),
    live: {
      get routing() {
        return live.current.routing;
      },
      clock,
      requests: statsSources.requests,
      inFlight: statsSources.inFlight,
      hooks: { list: () => fleet.hooks(hooks.list()) },
      refresh: () => fleet.refresh(),
    },
    ...(governance !== undefined && { governance }),
    ...(options.validateAdminResponses !== undefined && { validateResponses: options.validateAdminResponses }),
  };
  const adminApp = lazyListener(
    async () => (await (await import('../admin/admin-app.ts')).createAdminApp(adminOptions)).callback(),
    (error) => options.log.error({ err: error }, 'the admin plane could not be built'),
  );
  // No cap on the admin plane (it is not reachable by data-plane clients), but the same drain.
  const adminGuard = new ConnectionGuard({ maxConnections: Number.POSITIVE_INFINITY });
  // Without a token, only loopback protects the admin plane: a page on another site whose name
  // resolves to 127.0.0.1 (DNS rebinding) is refused by its Host header.
  const adminListener = adminGuard.listener(
    config.adminToken === undefined ? refuseForeignHosts(adminApp, [loaded.adminListen.host, admin.address, 'localhost']) : adminApp,
  );
  const adminServer =
    config.adminTls === undefined
      ? createServer(adminListener)
      : createHttpsServer(
          {
            ...secureContextOptions(config.adminTls),
            // mTLS: with a client CA, a connection without a certificate it signed is refused in the handshake.
            ...(config.adminTls.clientCa !== undefined && { requestCert: true, rejectUnauthorized: true }),
          },
          adminListener,
        );
  adminGuard.watch(adminServer);
  // Servers stop taking requests and finish the ones in flight; then spend and last-use are flushed.
  const close = async (deadlineMs = config.server.shutdownTimeoutMs, drainDelayMs = 0): Promise<CloseSummary> => {
    readiness.set('draining', true);
    clearInterval(storeCheck);
    if (drainDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, drainDelayMs));
    const drained = await Promise.all([dataGuard.drain(dataServer, deadlineMs), workers?.close(deadlineMs), adminGuard.drain(adminServer, deadlineMs)]);
    const cut = drained.reduce((sum, d) => sum + (d?.cut ?? 0), 0);
    if (cut > 0 && !(await inFlightSettled(inFlight, SETTLE_AFTER_CUT_MS)))
      options.log.warn({ inFlight: inFlight.current }, 'requests still settling after the shutdown cut');
    await dispatchers.close();
    await media.close();
    await configControl.close();
    // Every request has finished, so every webhook event is queued: send them before stopping.
    await hooks.close(options.hookFlushMs);
    await otlp?.shutdown();
    await governance?.close();
    await demo?.close();
    return { cut };
  };
  let dataUrl: string;
  let adminUrl: string;
  try {
    // With more workers, the others join the port the main thread bound (0 picks one); a port
    // another process holds is refused, never shared with it.
    dataUrl = await listen(dataServer, config.listen, { setting: 'listen', ...(config.workers > 1 && { share: 'lead' }) });
    // The workers are spawned at once (below); this thread gives back its start's heap while they
    // boot on their own threads, before it takes requests as one of them (compact-heap.ts).
    let starting: Promise<WorkerPool> | undefined;
    if (config.workers > 1) {
      starting = WorkerPool.start({
        config,
        routing: startBlocks,
        port: Number(new URL(dataUrl).port),
        observers: [...mainOnly, ...hooks.webhooks],
        writeLog: relayedLinesWriter(options.log),
        log: options.log,
        readiness,
        releaseWorker: (n) => {
          routingMemory.releaseWorker(n);
          live.current.routing.releaseWorker(n);
        },
        ...(metricsEndpoint !== undefined && { metrics: metricsEndpoint }),
        stats: statsEndpoint,
        ...(governance !== undefined && { governance }),
        ...(keyIssuer !== undefined && { keyIssuer }),
      });
    }
    compactHeap('serving');
    workers = await starting;
    adminUrl = await listen(adminServer, config.adminListen, { setting: 'admin_listen' });
  } catch (error) {
    await close(); // a port in use: release whatever did start
    throw error;
  }
  await checkStore();
  readiness.set('starting', false);
  options.log.info(
    { dataUrl, adminUrl, configVersion: config.configVersion, workers: config.workers, source: config.source, adminAuth: config.adminToken !== undefined },
    'gateway started',
  );
  const renewTls = (next: { tls: TlsMaterial | undefined; adminTls: TlsMaterial | undefined }): string[] => {
    const problems = tlsRenewalProblems(served, next);
    if (problems.length > 0) return problems;
    renewServerTls(dataServer, next.tls);
    if (next.tls !== undefined) workers?.renewTls(next.tls);
    renewServerTls(adminServer, next.adminTls);
    served = next;
    return [];
  };
  return {
    get config() {
      return live.current.config;
    },
    get routing() {
      return live.current.routing;
    },
    configControl,
    translations,
    hooks,
    readiness,
    renewTls,
    ...(opened?.local !== undefined && { governance: opened.local }),
    ...(governance !== undefined && { store: governance }),
    ...(metrics !== undefined && { metrics }),
    dataUrl,
    adminUrl,
    close,
    workerTelemetry: async () => [serving.telemetry(), ...((await workers?.telemetry()) ?? [])],
  };
}

/** Upstream model and protocol of each configured lane, for the attempt spans. */
function laneFacts(config: () => RuntimeConfig): (name: string) => LaneFacts | undefined {
  return (name) => {
    const lane = config().models.get(name);
    return lane === undefined ? undefined : { upstreamModel: lane.upstreamModel, protocol: lane.provider.protocol };
  };
}

/** The text a configuration was loaded from, when the caller did not say: its file, read again, or the embedded default. */
function startText(loaded: RuntimeConfig): string {
  if (loaded.source === EMBEDDED_DEFAULT_SOURCE) return EMBEDDED_DEFAULT_CONFIG;
  try {
    return readFileSync(loaded.source, 'utf8');
  } catch {
    return '';
  }
}
