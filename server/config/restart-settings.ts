import type { ConfigProblem } from './config-error.ts';
import type { RuntimeConfig } from './runtime-config.ts';
import { parseYamlSource, type YamlSource } from './yaml-source.ts';

/**
 * The settings a running gateway cannot change, each with why: a reload, apply or rollback that
 * changes one is refused whole ("needs a restart"), never half applied. Everything else in a
 * configuration changes live (README, "Live reload": models, pools, providers and their credentials, the
 * catalog and its prices, breakers, limits, models_require_key, metrics.require_key, the teams'
 * budgets (budget_cents, budget_period: `teamBudgets`, handed to governance on each change), and
 * the certificates of tls/admin_tls, whose on/off is checked by tls-rotation.ts).
 */
const RESTART_ONLY: readonly { readonly path: readonly string[]; readonly read: (c: RuntimeConfig) => unknown; readonly why: string }[] = [
  { path: ['listen'], read: (c) => c.listen, why: "the data plane's socket is bound at start" },
  { path: ['admin_listen'], read: (c) => c.adminListen, why: "the admin plane's socket is bound at start" },
  { path: ['workers'], read: (c) => c.workers, why: 'worker threads and the routing memory are sized at start' },
  { path: ['db_path'], read: (c) => c.dbPath, why: 'the governance store is opened at start' },
  { path: ['database_url'], read: (c) => c.databaseUrl, why: "the PostgreSQL store's connections and its key listener are opened at start" },
  { path: ['on_store_error'], read: (c) => c.onStoreError, why: 'the PostgreSQL store is built with its failure policy at start' },
  {
    path: ['reservation_lease_seconds'],
    read: (c) => c.reservationLeaseMs,
    why: 'reservations held in flight were leased, and are renewed, on the length set at start',
  },
  { path: ['governance'], read: (c) => c.governance, why: 'keys, budgets and their store are set up at start' },
  { path: ['governance_secret'], read: (c) => c.governanceSecret, why: 'key secrets are hashed under it' },
  { path: ['admin_token'], read: (c) => c.adminToken, why: 'the admin plane checks the token it started with' },
  { path: ['log_level'], read: (c) => c.logLevel, why: "every thread's logger is made at start" },
  { path: ['server'], read: (c) => c.server, why: 'timeouts and the connection cap are options of the listening servers' },
  { path: ['media_fetch'], read: (c) => c.mediaFetch, why: 'the image fetcher is made at start' },
  { path: ['hooks'], read: (c) => c.hooks, why: 'gate hooks run in every worker and webhooks queue events; they are not swapped while serving' },
  { path: ['otlp'], read: (c) => c.otlp, why: 'the OpenTelemetry exporter is started once' },
  { path: ['metrics', 'enabled'], read: (c) => c.metrics.enabled, why: 'GET /metrics is routed at start' },
  { path: ['auth'], read: (c) => c.auth, why: 'the OIDC issuer and sign-in routes are set up at start' },
  // Only the self-serve side of teams (which teams issue keys, their child_default): a change limited to budgets is live.
  { path: ['teams'], read: (c) => c.teams, why: "self-serve key issuance is set up with the teams' child_default at start (their budgets change live)" },
];

/**
 * Each restart-only setting `next` changes from `running` (both as loaded, before start resolved
 * anything), located in `text` (`next`'s YAML, parsed again only when there is something to say).
 */
export function restartProblems(running: RuntimeConfig, next: RuntimeConfig, text: string): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  let source: YamlSource | undefined;
  for (const setting of RESTART_ONLY) {
    if (stableJson(setting.read(running)) === stableJson(setting.read(next))) continue;
    source ??= parseYamlSource(text, next.source);
    const pos = source.locate(setting.path) ?? source.locate(setting.path.slice(0, 1));
    problems.push({
      file: source.file,
      path: setting.path.join('.'),
      message: `changed, which needs a restart (${setting.why}); restart the gateway to apply it, or leave it as the running configuration has it`,
      ...(pos && { line: pos.line, column: pos.column }),
    });
  }
  return problems;
}

/**
 * A configuration value as deterministic text, for telling whether two are the same: maps in
 * their order, bigints as digits, dates left out (`loadedAt` is never part of what it says).
 */
export function stableJson(value: unknown): string {
  return (
    JSON.stringify(value, (_key, v: unknown) => {
      if (v instanceof Map) return { $map: [...v.entries()] };
      if (typeof v === 'bigint') return `${v}n`;
      return v;
    }) ?? 'undefined'
  );
}

/** Whether two configurations say the same in every respect (secrets read included), when each was loaded. */
export function sameConfiguration(a: RuntimeConfig, b: RuntimeConfig): boolean {
  return stableJson({ ...a, loadedAt: undefined }) === stableJson({ ...b, loadedAt: undefined });
}
