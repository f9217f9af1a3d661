import * as oidc from 'openid-client';
import { AuthFailure } from './auth-failure.ts';
import type { PresentedTokens } from './identify.ts';
import type { LoginSeal } from './login-cookie.ts';
import type { OidcIssuer } from './oidc-issuer.ts';

/** Where the browser goes next, and the sealed sign-in state to set as a cookie on the way. */
export interface LoginStart {
  readonly location: string;
  readonly sealed: string;
}

/**
 * The hosted page's authorization-code flow with PKCE (S256), state and nonce, through
 * openid-client: start() sends the browser to the issuer, finish() takes the callback (the same
 * path, with ?code&state) and exchanges the code. openid-client checks state, the ID token's
 * signature, issuer, audience, times and nonce; the caller then verifies it again with the same
 * rules a posted token meets, so both ways into a key share one policy.
 */
export class LoginFlow {
  readonly #issuer: OidcIssuer;
  readonly #seal: LoginSeal;
  readonly #now: () => number;

  constructor(issuer: OidcIssuer, seal: LoginSeal, now: () => number = Date.now) {
    this.#issuer = issuer;
    this.#seal = seal;
    this.#now = now;
  }

  async start(redirectUri: string): Promise<LoginStart> {
    const { client } = await this.#issuer.discover();
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const nonce = oidc.randomNonce();
    const url = oidc.buildAuthorizationUrl(client, {
      redirect_uri: redirectUri,
      scope: this.#issuer.settings.scopes.join(' '),
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      nonce,
    });
    return { location: url.href, sealed: await this.#seal.seal({ state, nonce, verifier, redirectUri, startedAt: this.#now() }) };
  }

  /** `query` is the callback's query string; `sealed` the cookie start() set. */
  async finish(query: string, sealed: string | undefined): Promise<PresentedTokens> {
    const login = await this.#seal.open(sealed, this.#now());
    if (login === undefined) {
      throw new AuthFailure(400, 'sign_in_expired', 'this sign-in has expired, was already used, or was started in another browser: start again');
    }
    const { client } = await this.#issuer.discover();
    // The redirect_uri sent with the code must be the one the sign-in started with.
    const callback = new URL(login.redirectUri);
    callback.search = query;
    let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
    try {
      tokens = await oidc.authorizationCodeGrant(client, callback, {
        pkceCodeVerifier: login.verifier,
        expectedState: login.state,
        expectedNonce: login.nonce,
        idTokenExpected: true,
      });
    } catch (error) {
      throw grantFailure(error);
    }
    if (tokens.id_token === undefined) throw new AuthFailure(502, 'sign_in_failed', 'the issuer answered the sign-in without an ID token');
    return { idToken: tokens.id_token, accessToken: tokens.access_token };
  }
}

function grantFailure(error: unknown): AuthFailure {
  if (error instanceof oidc.AuthorizationResponseError) {
    // The issuer sent the person back with an error (access_denied, ...): its code is safe to show.
    const code = /^[\w.-]{1,64}$/.test(error.error) ? error.error : 'error';
    return new AuthFailure(
      error.error === 'access_denied' ? 403 : 401,
      'sign_in_failed',
      `the issuer did not sign you in (${code}): start again, or ask your administrator`,
      { cause: error },
    );
  }
  if (error instanceof oidc.ResponseBodyError) {
    // invalid_grant: the code was used already (a reload of the callback) or has expired.
    return new AuthFailure(400, 'sign_in_expired', `the issuer refused to complete this sign-in (${error.error}); it may have been used already: start again`, {
      cause: error,
    });
  }
  if (error instanceof TypeError || (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError'))) {
    return new AuthFailure(503, 'issuer_unavailable', 'the sign-in service (OIDC issuer) could not be reached to complete the sign-in; start again shortly', {
      retryAfterSeconds: 5,
      cause: error,
    });
  }
  const code = (error as { code?: string }).code;
  if (code === 'OAUTH_INVALID_RESPONSE' || code === 'OAUTH_JWT_CLAIM_COMPARISON_FAILED') {
    // Most often a state that is not this browser's sign-in (another tab), or a nonce mismatch.
    return new AuthFailure(400, 'sign_in_expired', 'this sign-in does not match the one your browser started (state or nonce): start again', { cause: error });
  }
  return new AuthFailure(502, 'sign_in_failed', "the issuer's answer to the sign-in could not be used: start again, or ask your administrator", {
    cause: error,
  });
}
