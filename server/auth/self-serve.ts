import type { RuntimeConfig, SelfServeSettings, TeamDefaults } from '../config/runtime-config.ts';
import { identify, type Person, type PresentedTokens } from './identify.ts';
import type { Logger } from '../shared/logger.ts';
import type { KeyIssuer } from './key-issuer.ts';
import { LoginSeal } from './login-cookie.ts';
import { LoginFlow } from './login-flow.ts';
import { OidcIssuer, type IssuerTimings } from './oidc-issuer.ts';

/** Everything /auth/token needs, built once at start. */
export interface SelfServe {
  readonly settings: SelfServeSettings;
  readonly issuer: OidcIssuer;
  readonly login: LoginFlow;
  readonly keys: KeyIssuer;
  readonly teams: ReadonlyMap<string, TeamDefaults>;
  /** Verifies the tokens and finds the person's team (401, 403, 503 as AuthFailures). */
  identify(tokens: PresentedTokens): Promise<Person>;
  /** A model name of this gateway, for the key page's snippets. */
  readonly exampleModel: string;
  readonly log: Logger;
}

export interface SelfServeOptions {
  readonly log: Logger;
  /** JWKS and discovery timings; tests shorten them. */
  readonly timings?: IssuerTimings;
}

/**
 * Self-serve keys when `auth:` is configured (the config loader has checked that governance is on
 * and governance_secret is set); undefined otherwise. `keys` issues them: the local issuer in the
 * main thread, a proxy to it in a data-plane worker. Discovery starts in the background, so a
 * slow or absent issuer never delays the gateway's start. start-gateway imports this module only
 * when auth is configured: openid-client and jose are not loaded by gateways that do not use them.
 */
export function createSelfServe(config: RuntimeConfig, keys: KeyIssuer | undefined, options: SelfServeOptions): SelfServe | undefined {
  const settings = config.auth;
  if (settings === undefined) return undefined;
  if (keys === undefined || config.governanceSecret === undefined) {
    throw new Error('self-serve keys need governance (db_path) and governance_secret; the configuration loader should have refused this');
  }
  const log = options.log.child({ component: 'self-serve' });
  const issuer = new OidcIssuer(settings.oidc, log, options.timings);
  issuer.discover().catch(() => {}); // logged inside; retried on the first request
  return {
    settings,
    issuer,
    login: new LoginFlow(issuer, new LoginSeal(config.governanceSecret)),
    keys,
    teams: config.teams,
    identify: (tokens) => identify(tokens, issuer, config.teams),
    exampleModel: config.models.keys().next().value ?? config.pools.keys().next().value ?? 'your-model',
    log,
  };
}
