import { createRemoteJWKSet, errors as joseErrors, type JWTVerifyGetKey } from 'jose';
import * as oidc from 'openid-client';
import type { OidcSettings } from '../config/runtime-config.ts';
import type { Logger } from '../shared/logger.ts';
import { AuthFailure } from './auth-failure.ts';

/** Signature algorithms with a public key. `none` and the HMAC family (HS*) are never among them. */
export const ASYMMETRIC_ALGORITHMS: readonly string[] = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];

/** A key resolver for jose's jwtVerify, over the issuer's JWKS. */
export type KeyResolver = JWTVerifyGetKey;

/** What discovery gives: openid-client's configuration (code flow, UserInfo) and the JWKS. */
export interface DiscoveredIssuer {
  readonly client: oidc.Configuration;
  readonly keys: KeyResolver;
  /** The algorithms a token may be signed with: configured, or the issuer's asymmetric ones. */
  readonly algorithms: readonly string[];
}

export interface IssuerTimings {
  /** After a JWKS fetch, an unknown key id does not fetch again for this long (jose's cooldown). */
  readonly jwksCooldownMs?: number;
  /** A JWKS is fetched again after this long even if every key id is known. */
  readonly jwksMaxAgeMs?: number;
  /** For discovery, JWKS and UserInfo requests. */
  readonly requestTimeoutMs?: number;
  /** After a failed discovery, requests fail at once for this long instead of asking again. */
  readonly retryDelayMs?: number;
}

const DEFAULTS = { jwksCooldownMs: 30_000, jwksMaxAgeMs: 600_000, requestTimeoutMs: 5_000, retryDelayMs: 5_000 };

/**
 * The configured issuer, discovered on first use (and at start, in the background) rather than
 * before the gateway listens: an unreachable issuer makes /auth/token answer 503 and leaves every
 * other route alone. A failed discovery is retried on a later request, at most once per
 * retryDelayMs. The discovery document must name exactly the configured issuer (openid-client
 * checks), and the JWKS comes only from its jwks_uri: a token's own jku, x5u or jwk is never used.
 */
export class OidcIssuer {
  readonly #settings: OidcSettings;
  readonly #log: Logger;
  readonly #timings: Required<IssuerTimings>;
  #discovered: Promise<DiscoveredIssuer> | undefined;
  #failure: { at: number; error: AuthFailure } | undefined;

  constructor(settings: OidcSettings, log: Logger, timings: IssuerTimings = {}) {
    this.#settings = settings;
    this.#log = log;
    this.#timings = { ...DEFAULTS, ...timings };
  }

  get settings(): OidcSettings {
    return this.#settings;
  }

  discover(): Promise<DiscoveredIssuer> {
    if (this.#failure !== undefined) {
      const waited = Date.now() - this.#failure.at;
      if (waited < this.#timings.retryDelayMs) return Promise.reject(this.#failure.error);
      this.#failure = undefined;
    }
    this.#discovered ??= this.#run().catch((error: unknown) => {
      const failure = error instanceof AuthFailure ? error : unavailable('could not read its discovery document', error);
      this.#log.warn({ err: error, issuer: this.#settings.issuer }, 'OIDC discovery failed (self-serve keys answer 503 until it succeeds)');
      this.#failure = { at: Date.now(), error: failure };
      this.#discovered = undefined;
      throw failure;
    });
    return this.#discovered;
  }

  async #run(): Promise<DiscoveredIssuer> {
    const settings = this.#settings;
    const metadata: Partial<oidc.ClientMetadata> = { [oidc.clockTolerance]: settings.clockToleranceSeconds };
    if (settings.algorithms?.length === 1) metadata.id_token_signed_response_alg = settings.algorithms[0];
    const client = await oidc.discovery(
      new URL(settings.issuer),
      settings.clientId,
      metadata,
      settings.clientSecret === undefined ? oidc.None() : oidc.ClientSecretBasic(settings.clientSecret),
      {
        ...(settings.insecureLoopbackIssuer && { execute: [oidc.allowInsecureRequests] }),
        timeout: Math.ceil(this.#timings.requestTimeoutMs / 1000),
      },
    );
    const server = client.serverMetadata();
    if (server.jwks_uri === undefined) throw unavailable('its discovery document has no jwks_uri');
    const offered = server.id_token_signing_alg_values_supported ?? ['RS256'];
    const algorithms = settings.algorithms ?? offered.filter((alg) => ASYMMETRIC_ALGORITHMS.includes(alg));
    if (algorithms.length === 0) {
      throw unavailable(`it lists no public-key signature algorithm (${offered.join(', ')}); set auth.oidc.algorithms`);
    }
    const jwks = createRemoteJWKSet(new URL(server.jwks_uri), {
      cooldownDuration: this.#timings.jwksCooldownMs,
      cacheMaxAge: this.#timings.jwksMaxAgeMs,
      timeoutDuration: this.#timings.requestTimeoutMs,
    });
    const keys: KeyResolver = async (header, token) => {
      try {
        return await jwks(header, token);
      } catch (error) {
        // An unknown or ambiguous key id is the token's fault (401); anything else is the issuer's.
        if (error instanceof joseErrors.JWKSNoMatchingKey || error instanceof joseErrors.JWKSMultipleMatchingKeys) throw error;
        this.#log.warn({ err: error, jwksUri: server.jwks_uri }, "could not fetch the OIDC issuer's JWKS");
        throw unavailable('could not fetch its signing keys (JWKS)', error);
      }
    };
    this.#log.info({ issuer: server.issuer, algorithms }, 'OIDC issuer discovered');
    return { client, keys, algorithms };
  }
}

function unavailable(what: string, cause?: unknown): AuthFailure {
  return new AuthFailure(503, 'issuer_unavailable', `the sign-in service (OIDC issuer) is not available: ${what}; try again shortly`, {
    retryAfterSeconds: 5,
    cause,
  });
}
