import { mediaFetchSettings } from '../media/media-fetch-settings.ts';
import { availableParallelism } from 'node:os';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import validateConfig from '../../generated/validators/config.js';
import type { Catalog, Provider } from '../../generated/catalog-types.ts';
import type { GatewayConfig, ModelRoute as ModelRouteConfig } from '../../generated/config-types.ts';
import { supportedProtocols } from '../protocols/registry.ts';
import { credentialsFromEnv, regionFromBedrockUrl } from '../upstream/sigv4.ts';
import { loadCatalog } from './catalog.ts';
import { ConfigError, type ConfigProblem, type ReportProblem } from './config-error.ts';
import { EMBEDDED_DEFAULT_CONFIG, EMBEDDED_DEFAULT_SOURCE } from './embedded-default.ts';
import { isLoopback, needsLookup } from './loopback.ts';
import { breakerSettings, DEFAULT_BREAKER, type BreakerSettings } from '../routing/breaker-settings.ts';
import type {
  Limits,
  ListenAddress,
  ModelRoute,
  Operation,
  OtlpSettings,
  PoolRoute,
  ProviderRuntime,
  RuntimeConfig,
  ServerSettings,
} from './runtime-config.ts';
import { schemaProblems } from './schema-problems.ts';
import { resolveHooks } from './resolve-hooks.ts';
import { resolveDatabaseUrl } from './database-url.ts';
import { readSecret, readSecretText } from './secret-ref.ts';
import { resolveDataPlaneTls } from './data-plane-tls.ts';
import { resolveSelfServe, resolveTeams } from './self-serve-config.ts';
import { resolveTeamBudgets } from './team-budgets.ts';
import { parseYamlSource } from './yaml-source.ts';
import { listenAddressProblem, type ListenOverride, type ListenOverrides } from './listen-overrides.ts';

/**
 * Used when neither the config nor the catalog knows the model (an upstream model the catalog does
 * not ship): every current Anthropic model can give at least this much, so it is never refused.
 */
const FALLBACK_MAX_TOKENS = 4096;

export interface LoadOptions {
  readonly env?: NodeJS.ProcessEnv;
  /** `--listen` / `GATEWAY_LISTEN` and `--admin-listen` / `GATEWAY_ADMIN_LISTEN`, over the file's. */
  readonly overrides?: ListenOverrides;
}

/** `gateway --config <file>`: the file given, else ./config.yaml if present, else the embedded default. */
export function chooseConfigFile(explicit: string | undefined, cwd = process.cwd()): string | undefined {
  if (explicit !== undefined) return explicit;
  const local = resolve(cwd, 'config.yaml');
  return existsSync(local) ? local : undefined;
}

export function loadConfigFile(file: string | undefined, options: LoadOptions = {}): RuntimeConfig {
  return loadConfigSource(file, options).config;
}

/** The same, with the text it was loaded from (kept for reloads and the version history). */
export function loadConfigSource(file: string | undefined, options: LoadOptions = {}): { config: RuntimeConfig; text: string } {
  if (file === undefined)
    return { config: loadConfigText(EMBEDDED_DEFAULT_CONFIG, EMBEDDED_DEFAULT_SOURCE, process.cwd(), options), text: EMBEDDED_DEFAULT_CONFIG };
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new ConfigError([{ file, path: '', message: `cannot read the configuration (${(e as NodeJS.ErrnoException).code ?? 'error'})` }]);
  }
  return { config: loadConfigText(text, file, dirname(resolve(file)), options), text };
}

/** Parses, validates and resolves a config; every problem found is reported at once. */
export function loadConfigText(text: string, file: string, baseDir: string, options: LoadOptions = {}): RuntimeConfig {
  const env = options.env ?? process.env;
  const source = parseYamlSource(text, file);
  if (!validateConfig(source.value)) throw new ConfigError(schemaProblems(source, validateConfig.errors));
  const config = source.value as GatewayConfig;
  const relative = (p: string) => (isAbsolute(p) ? p : resolve(baseDir, p));

  const catalogFile = config.catalog === undefined ? undefined : relative(config.catalog);
  const catalog = loadCatalog(catalogFile);
  const problems: ConfigProblem[] = [];
  const problem = (path: (string | number)[], message: string) => {
    const pos = source.locate(path);
    problems.push({ file, path: path.join('.'), message, ...(pos && { line: pos.line, column: pos.column }) });
  };

  const providers = resolveProviders(config, catalog, baseDir, env, problem);
  const limits = resolveLimits(config);
  if (limits.maxRequestBytesInFlight < limits.maxRequestBytes) {
    problem(
      ['limits', 'max_request_bytes_in_flight'],
      `must be at least max_request_bytes (${limits.maxRequestBytes}), or no request of the largest size could ever be read`,
    );
  }
  const server = resolveServer(config, problem);
  const breaker = breakerSettings(DEFAULT_BREAKER, config.breaker);
  const models = resolveModels(config, catalog, providers, limits, problem);
  const pools = resolvePools(config, models, breaker, problem);

  let adminToken = env.GATEWAY_ADMIN_TOKEN || undefined;
  if (adminToken === undefined && config.admin_token !== undefined) {
    const secret = readSecret(config.admin_token, baseDir, env);
    if ('error' in secret) problem(['admin_token'], secret.error);
    else adminToken = secret.value;
  }
  // An address from a flag or the environment replaces the file's, and is checked like it.
  const overridden = (override: ListenOverride | undefined, fromFile: string | undefined, fallback: string): string => {
    if (override === undefined) return fromFile ?? fallback;
    const wrong = listenAddressProblem(override.value);
    if (wrong === undefined) return override.value;
    problems.push({ file: override.from, path: '', message: wrong });
    return fallback;
  };
  const listen = parseListen(overridden(options.overrides?.listen, config.listen, '0.0.0.0:8080'));
  const adminListen = parseListen(overridden(options.overrides?.adminListen, config.admin_listen, '127.0.0.1:8081'));
  // A name is judged by what it resolves to, at start (app/admin-address.ts); literals here already.
  const beyondLoopback = !needsLookup(adminListen.host) && !isLoopback(adminListen.host);
  if (beyondLoopback && adminToken === undefined && config.admin_token === undefined) {
    // Checked here too (not only at start) so that `gateway --validate` says so.
    problem(
      ['admin_listen'],
      `the admin plane would listen on ${adminListen.host}, beyond loopback, with no admin token: set GATEWAY_ADMIN_TOKEN or admin_token`,
    );
  }
  if (beyondLoopback && config.admin_tls === undefined) {
    // Beyond loopback the admin token would cross the network in clear.
    problem(
      ['admin_listen'],
      `the admin plane would listen on ${adminListen.host}, beyond loopback, without TLS: set admin_tls (cert, key, and client_ca for mTLS)`,
    );
  }
  const governance = config.governance === 'on' || config.governance === true;
  if (governance && config.db_path === undefined && config.database_url === undefined) {
    problem(
      ['governance'],
      'governance is on but neither db_path nor database_url is set: virtual keys and their spend are kept in the db_path file (e.g. db_path: ./gateway.db), or in PostgreSQL for several gateways (database_url: { env: GATEWAY_DATABASE_URL })',
    );
  }
  const databaseUrl = resolveDatabaseUrl(config, baseDir, env, problem);
  let governanceSecret: string | undefined;
  if (config.governance_secret !== undefined) {
    const secret = readSecret(config.governance_secret, baseDir, env);
    if ('error' in secret) problem(['governance_secret'], secret.error);
    else governanceSecret = secret.value;
  }
  const adminTls = readAdminTls(config, baseDir, problem);
  const tls = resolveDataPlaneTls(config.tls, baseDir, env, problem);
  const hooks = resolveHooks(config, baseDir, env, problem);
  const otlp = resolveOtlp(config, baseDir, env, problem);
  const teams = resolveTeams(config);
  const teamBudgets = resolveTeamBudgets(config);
  const auth = resolveSelfServe(config, { baseDir, env, teams, problem });
  if (problems.length > 0) throw new ConfigError(problems);

  const catalogText = catalogFile === undefined ? '' : readFileSync(catalogFile, 'utf8');
  return {
    source: file,
    configVersion: `cfg_${createHash('sha256').update(text).update('\0').update(catalogText).digest('hex').slice(0, 16)}`,
    loadedAt: new Date(),
    listen,
    adminListen,
    adminToken,
    adminTls,
    tls,
    providers,
    models,
    pools,
    breaker,
    governance,
    dbPath: config.db_path === undefined ? undefined : relative(config.db_path),
    databaseUrl,
    onStoreError: config.on_store_error ?? 'deny',
    reservationLeaseMs: (config.reservation_lease_seconds ?? 30) * 1000,
    governanceSecret,
    limits,
    server,
    modelsRequireKey: config.models_require_key ?? true,
    mediaFetch: mediaFetchSettings(config.media_fetch),
    hooks,
    logLevel: config.log_level ?? 'info',
    workers: config.workers === undefined || config.workers === 'auto' ? availableParallelism() : config.workers,
    metrics: { enabled: config.metrics?.enabled ?? true, requireKey: config.metrics?.require_key ?? false },
    otlp,
    teams,
    teamBudgets,
    auth,
  };
}

/** `otlp:` with its header secrets read; undefined when the section is absent (no export). */
function resolveOtlp(config: GatewayConfig, baseDir: string, env: NodeJS.ProcessEnv, problem: ReportProblem): OtlpSettings | undefined {
  const otlp = config.otlp;
  if (otlp === undefined) return undefined;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(otlp.headers ?? {})) {
    if (value === undefined) continue;
    if (typeof value === 'string') {
      headers[name] = value;
      continue;
    }
    const secret = readSecret(value, baseDir, env);
    if ('error' in secret) problem(['otlp', 'headers', name], secret.error);
    else headers[name] = secret.value;
  }
  return {
    endpoint: otlp.endpoint.replace(/\/+$/, ''),
    headers,
    captureContent: otlp.capture_content ?? false,
    serviceName: otlp.service_name ?? 'gateway',
    traces: otlp.traces ?? true,
    metrics: otlp.metrics ?? true,
    metricsIntervalMs: otlp.metrics_interval_ms ?? 60_000,
    maxQueueSize: otlp.max_queue_size ?? 2048,
    timeoutMs: otlp.timeout_ms ?? 10_000,
  };
}

/** Every catalog provider the config names or a model uses, with its credential read. */
function resolveProviders(
  config: GatewayConfig,
  catalog: Catalog,
  baseDir: string,
  env: NodeJS.ProcessEnv,
  problem: ReportProblem,
): Map<string, ProviderRuntime> {
  const names = new Set([...Object.keys(config.providers ?? {}), ...Object.values(config.models ?? {}).map((m) => (m as ModelRouteConfig).provider)]);
  const out = new Map<string, ProviderRuntime>();
  for (const name of names) {
    const entry = catalog[name] as Provider | undefined;
    const settings = config.providers?.[name];
    if (entry === undefined) {
      if (settings !== undefined) problem(['providers', name], `unknown provider "${name}": not in the catalog (add it to your providers.yaml)`);
      continue; // a model naming it reports it too, at the model
    }
    let apiKey: string | undefined;
    if (settings?.api_key !== undefined) {
      const secret = readSecret(settings.api_key, baseDir, env);
      if ('error' in secret) problem(['providers', name, 'api_key'], secret.error);
      else apiKey = secret.value;
    }
    out.set(name, {
      name,
      protocol: entry.protocol,
      baseUrl: entry.base_url.replace(/\/+$/, ''),
      auth: entry.auth,
      apiKey,
      aws: entry.auth === 'sigv4' && apiKey === undefined ? awsSigning(entry.base_url, env) : undefined,
      headers: defined({ ...entry.headers, ...settings?.headers }),
      query: defined({ ...entry.query }),
      errorMap: defined({ ...entry.error_map }),
    });
  }
  return out;
}

function resolveLimits(config: GatewayConfig): Limits {
  const limits = config.limits ?? {};
  return {
    maxRequestBytes: limits.max_request_bytes ?? 32 * 1024 * 1024,
    maxRequestBytesInFlight: limits.max_request_bytes_in_flight ?? 256 * 1024 * 1024,
    connectTimeoutMs: limits.upstream_connect_timeout_ms ?? 10_000,
    firstByteTimeoutMs: limits.upstream_first_byte_timeout_ms ?? 120_000,
    idleTimeoutMs: limits.upstream_idle_timeout_ms ?? 300_000,
  };
}

function resolveServer(config: GatewayConfig, problem: ReportProblem): ServerSettings {
  const server = config.server ?? {};
  const headerTimeoutMs = server.header_timeout_ms ?? 15_000;
  const requestTimeoutMs = server.request_timeout_ms ?? Math.max(60_000, headerTimeoutMs);
  // The headers are part of the request: Node refuses a header timeout longer than the request's.
  if (headerTimeoutMs > requestTimeoutMs)
    problem(
      ['server', 'header_timeout_ms'],
      `header_timeout_ms (${headerTimeoutMs}) is longer than request_timeout_ms (${requestTimeoutMs}), which includes the headers`,
    );
  return {
    headerTimeoutMs,
    requestTimeoutMs,
    keepAliveTimeoutMs: server.keep_alive_timeout_ms ?? 5_000,
    maxConnections: server.max_connections ?? 'auto',
    shutdownTimeoutMs: server.shutdown_timeout_ms ?? 25_000,
    drainDelayMs: server.drain_delay_ms ?? 0,
  };
}

function resolveModels(
  config: GatewayConfig,
  catalog: Catalog,
  providers: Map<string, ProviderRuntime>,
  limits: Limits,
  problem: ReportProblem,
): Map<string, ModelRoute> {
  const supported = supportedProtocols();
  const out = new Map<string, ModelRoute>();
  for (const [name, raw] of Object.entries(config.models ?? {})) {
    const route = raw as ModelRouteConfig;
    const provider = providers.get(route.provider);
    if (provider === undefined) {
      problem(['models', name, 'provider'], `unknown provider "${route.provider}" (known: ${Object.keys(catalog).sort().join(', ')})`);
      continue;
    }
    if (!supported.includes(provider.protocol)) {
      problem(
        ['models', name, 'provider'],
        `provider "${provider.name}" speaks the ${provider.protocol} protocol, which this build cannot send yet (supported: ${supported.join(', ')})`,
      );
      continue;
    }
    if (provider.auth !== 'none' && provider.apiKey === undefined && provider.aws === undefined) {
      if (config.providers?.[provider.name]?.api_key !== undefined) continue; // unreadable: reported at the api_key
      const aws = provider.auth === 'sigv4' ? ' (or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY in the environment, for SigV4 signing)' : '';
      problem(
        ['models', name, 'provider'],
        `provider "${provider.name}" needs a credential: set providers.${provider.name}.api_key to { env: NAME } or { file: PATH }${aws}`,
      );
      continue;
    }
    const catalogModel = (catalog[provider.name] as Provider).models?.[route.model];
    out.set(name, {
      name,
      provider,
      upstreamModel: route.model,
      defaultMaxTokens: route.max_tokens ?? catalogModel?.default_max_tokens ?? catalogModel?.max_output_tokens ?? FALLBACK_MAX_TOKENS,
      price: route.price ?? catalogModel?.price,
      operations: servedOperations(route.operations ?? catalogModel?.operations ?? ['chat']),
      operationPrices: { ...catalogModel?.operation_prices, ...route.operation_prices },
      embeddingInputType: route.embedding_input_type ?? 'search_document',
      maxConcurrent: route.max_concurrent,
      timeouts: {
        connectMs: route.timeouts?.connect_ms ?? limits.connectTimeoutMs,
        firstByteMs: route.timeouts?.first_byte_ms ?? limits.firstByteTimeoutMs,
        idleMs: route.timeouts?.idle_ms ?? limits.idleTimeoutMs,
      },
    });
  }
  return out;
}

/** Lanes a request may try when the pool does not say: every member, but no more than this. */
const DEFAULT_MAX_ATTEMPTS = 3;
const DEFAULT_POOL_DEADLINE_MS = 120_000;

function resolvePools(config: GatewayConfig, models: Map<string, ModelRoute>, breaker: BreakerSettings, problem: ReportProblem): Map<string, PoolRoute> {
  const out = new Map<string, PoolRoute>();
  for (const [name, pool] of Object.entries(config.pools ?? {})) {
    if (pool === undefined) continue;
    if (config.models?.[name] !== undefined) {
      problem(['pools', name], `"${name}" is both a model and a pool; clients could not tell which they get`);
      continue;
    }
    const members: PoolRoute['members'][number][] = [];
    pool.members.forEach((member, i) => {
      const model = models.get(member.model);
      if (model === undefined) {
        if (config.models?.[member.model] === undefined) problem(['pools', name, 'members', i, 'model'], `unknown model "${member.model}"`);
        return;
      }
      members.push({ model, weight: member.weight ?? 1 });
    });
    out.set(name, {
      name,
      members,
      maxAttempts: pool.max_attempts ?? Math.min(members.length, DEFAULT_MAX_ATTEMPTS),
      deadlineMs: pool.deadline_ms ?? DEFAULT_POOL_DEADLINE_MS,
      breaker: breakerSettings(breaker, pool.breaker),
    });
  }
  return out;
}

/** The admin plane's certificate, key and client CA, read at load so a missing file stops the start. */
function readAdminTls(config: GatewayConfig, baseDir: string, problem: ReportProblem): RuntimeConfig['adminTls'] {
  const tls = config.admin_tls;
  if (tls === undefined) return undefined;
  const read = (field: 'cert' | 'key' | 'client_ca', file: string | undefined): string | undefined => {
    if (file === undefined) return undefined;
    const pem = readSecretText({ file }, baseDir, {});
    if ('text' in pem) return pem.text;
    problem(['admin_tls', field], pem.error);
    return undefined;
  };
  const cert = read('cert', tls.cert);
  const key = read('key', tls.key);
  const clientCa = read('client_ca', tls.client_ca);
  return cert === undefined || key === undefined ? undefined : { cert, key, clientCa };
}

/** Bedrock signs with AWS credentials from the environment; the region comes from the URL, else AWS_REGION. */
function awsSigning(baseUrl: string, env: NodeJS.ProcessEnv): ProviderRuntime['aws'] {
  const credentials = credentialsFromEnv(env);
  if (credentials === undefined) return undefined;
  return { region: regionFromBedrockUrl(baseUrl) ?? env.AWS_REGION ?? env.AWS_DEFAULT_REGION ?? 'us-east-1', credentials };
}

/** Generated map types allow undefined values (strict index signatures); YAML never yields them. */
function defined<T>(map: Record<string, T | undefined>): Record<string, T> {
  return Object.fromEntries(Object.entries(map).filter((e): e is [string, T] => e[1] !== undefined));
}

function parseListen(address: string): ListenAddress {
  const colon = address.lastIndexOf(':');
  let host = address.slice(0, colon);
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  return { host: host === '' ? '0.0.0.0' : host, port: Number(address.slice(colon + 1)) };
}

/** What a model serves: what it lists, and a chat model counts tokens too (`count_tokens` is advice about chat). */
function servedOperations(listed: readonly Operation[]): ReadonlySet<Operation> {
  const served = new Set(listed);
  if (served.has('chat')) served.add('count_tokens');
  return served;
}
