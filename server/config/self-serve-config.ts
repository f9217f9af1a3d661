import type { GatewayConfig } from '../../generated/config-types.ts';
import { centsToMicrocents } from '../shared/money.ts';
import type { ReportProblem } from './config-error.ts';
import { isLoopback } from './loopback.ts';
import type { OidcSettings, SelfServeSettings, TeamDefaults } from './runtime-config.ts';
import { readSecret } from './secret-ref.ts';

const DEFAULT_CLOCK_TOLERANCE_SECONDS = 30;
const DEFAULT_MAX_TOKEN_AGE_SECONDS = 600;
const DEFAULT_TEAM_CLAIM = 'team';
const DEFAULT_SCOPES = ['email', 'profile'];

/**
 * The teams that issue self-serve keys: those with a `child_default` (a team may have only a
 * budget, config/team-budgets.ts, and issue nothing).
 */
export function resolveTeams(config: GatewayConfig): Map<string, TeamDefaults> {
  const teams = new Map<string, TeamDefaults>();
  for (const [name, team] of Object.entries(config.teams ?? {})) {
    if (team?.child_default === undefined) continue;
    const { budget_cents: budget, rpm } = team.child_default;
    teams.set(name, { name, budgetMicrocents: budget === undefined ? null : centsToMicrocents(budget), rpm: rpm ?? null });
  }
  return teams;
}

export interface SelfServeContext {
  readonly baseDir: string;
  readonly env: NodeJS.ProcessEnv;
  readonly teams: ReadonlyMap<string, TeamDefaults>;
  readonly problem: ReportProblem;
}

/**
 * `auth:` resolved, with what it needs from the rest of the file checked here, so that
 * `gateway --validate` says so: keys are issued into the governance store (db_path, governance on)
 * and derived from governance_secret, which must live outside that store.
 */
export function resolveSelfServe(config: GatewayConfig, context: SelfServeContext): SelfServeSettings | undefined {
  const auth = config.auth;
  if (auth === undefined) return undefined;
  const { problem } = context;
  const oidc = auth.oidc;
  if (config.governance !== 'on' && config.governance !== true) {
    problem(['auth'], 'self-serve keys need governance: on (and db_path): without it the keys issued would not be required or enforced');
  }
  if (config.db_path === undefined && config.database_url === undefined)
    problem(['auth'], 'self-serve keys need db_path or database_url: keys, their budgets and the identities they belong to are kept there');
  if (config.governance_secret === undefined) {
    problem(
      ['auth'],
      "self-serve keys need governance_secret ({ env } or { file }): each key is derived from it, and a secret kept inside the database would let anyone with a copy of the file compute every user's key",
    );
  }
  if (context.teams.size === 0)
    problem(['auth'], 'self-serve keys need at least one team under teams: with a child_default (the budget and rpm each key of the team gets)');
  if (oidc.default_team !== undefined && !context.teams.has(oidc.default_team)) {
    const named = config.teams?.[oidc.default_team] !== undefined;
    problem(
      ['auth', 'oidc', 'default_team'],
      named
        ? `default_team "${oidc.default_team}" has no child_default, so it issues no self-serve keys; give it one, or name one of the teams that do (${[...context.teams.keys()].join(', ') || 'none'})`
        : `default_team "${oidc.default_team}" is not one of the teams under teams: (${[...context.teams.keys()].join(', ') || 'none'})`,
    );
  }

  const issuer = new URL(oidc.issuer);
  const insecureLoopbackIssuer = issuer.protocol === 'http:';
  if (insecureLoopbackIssuer && !isLoopback(issuer.hostname.replace(/^\[|\]$/g, ''))) {
    problem(['auth', 'oidc', 'issuer'], 'the issuer must be https: http is accepted only on loopback, for a local test issuer');
  }
  let clientSecret: string | undefined;
  if (oidc.client_secret !== undefined) {
    const secret = readSecret(oidc.client_secret, context.baseDir, context.env);
    if ('error' in secret) problem(['auth', 'oidc', 'client_secret'], secret.error);
    else clientSecret = secret.value;
  }
  const settings: OidcSettings = {
    issuer: oidc.issuer,
    clientId: oidc.client_id,
    clientSecret,
    audiences: oidc.audiences ?? [oidc.client_id],
    algorithms: oidc.algorithms,
    clockToleranceSeconds: oidc.clock_tolerance_seconds ?? DEFAULT_CLOCK_TOLERANCE_SECONDS,
    maxTokenAgeSeconds: oidc.max_token_age_seconds ?? DEFAULT_MAX_TOKEN_AGE_SECONDS,
    teamClaim: oidc.team_claim ?? DEFAULT_TEAM_CLAIM,
    defaultTeam: oidc.default_team,
    scopes: ['openid', ...(oidc.scopes ?? DEFAULT_SCOPES).filter((scope) => scope !== 'openid')],
    userinfo: oidc.userinfo === 'on' || oidc.userinfo === true,
    insecureLoopbackIssuer,
  };
  return { publicUrl: auth.public_url?.replace(/\/+$/, ''), oidc: settings };
}
