import type Router from '@koa/router';
import type Koa from 'koa';
import { AuthFailure } from './auth-failure.ts';
import type { IssuedKey } from './key-issuer.ts';
import { LOGIN_COOKIE, LOGIN_TTL_SECONDS } from './login-cookie.ts';
import { newNonce, pageHeaders } from './page-headers.ts';
import { errorPage, keyPage, landingPage } from './pages.ts';
// Types only: openid-client and jose load with self-serve.ts, when auth is configured.
import type { SelfServe } from './self-serve.ts';
import { readTokenRequest } from './token-request.ts';

export const AUTH_TOKEN_PATH = '/auth/token';

const DISABLED_MESSAGE =
  'self-serve keys are not enabled on this gateway: the operator turns them on with auth.oidc and teams in config.yaml (with governance on)';

/**
 * GET /auth/token: the hosted sign-in page (landing, ?sign_in=1 to start, the issuer's callback
 * with ?code or ?error, which answers with the key page). POST /auth/token: an ID token (and an
 * access token, with userinfo: on) exchanged for the caller's key, as JSON.
 */
export function addAuthTokenRoutes(router: Router, selfServe: SelfServe | undefined): void {
  router.post(AUTH_TOKEN_PATH, async (ctx) => {
    ctx.set('cache-control', 'no-store');
    try {
      if (selfServe === undefined) throw new AuthFailure(404, 'self_serve_disabled', DISABLED_MESSAGE);
      const tokens = await readTokenRequest(ctx.req);
      const person = await selfServe.identify(tokens);
      const issued = await selfServe.keys.issue(person);
      ctx.body = tokenAnswer(issued, baseUrl(ctx, selfServe));
    } catch (error) {
      const failure = asFailure(error, selfServe, ctx);
      ctx.status = failure.status;
      if (failure.retryAfterSeconds !== undefined) ctx.set('retry-after', String(failure.retryAfterSeconds));
      if (failure.status === 413) ctx.set('connection', 'close');
      ctx.body = failure.toJSON();
    }
  });

  router.get(AUTH_TOKEN_PATH, async (ctx) => {
    const nonce = newNonce();
    ctx.set(pageHeaders(nonce));
    ctx.type = 'text/html; charset=utf-8';
    try {
      if (selfServe === undefined) throw new AuthFailure(404, 'self_serve_disabled', DISABLED_MESSAGE);
      const query = ctx.query;
      if (query.code !== undefined || query.error !== undefined) {
        const sealed = ctx.cookies.get(LOGIN_COOKIE);
        setCookie(ctx, selfServe, ''); // one sign-in, one callback: the state is spent either way
        const tokens = await selfServe.login.finish(ctx.querystring, sealed);
        const person = await selfServe.identify(tokens);
        const issued = await selfServe.keys.issue(person);
        ctx.body = keyPage({ nonce, issued, who: person.label, baseUrl: baseUrl(ctx, selfServe), model: selfServe.exampleModel });
      } else if (query.sign_in !== undefined) {
        const start = await selfServe.login.start(baseUrl(ctx, selfServe) + AUTH_TOKEN_PATH);
        setCookie(ctx, selfServe, start.sealed);
        ctx.status = 303;
        ctx.set('location', start.location);
        ctx.body = '';
      } else {
        ctx.body = landingPage({ nonce, issuerName: new URL(selfServe.settings.oidc.issuer).host });
      }
    } catch (error) {
      const failure = asFailure(error, selfServe, ctx);
      ctx.status = failure.status;
      if (failure.retryAfterSeconds !== undefined) ctx.set('retry-after', String(failure.retryAfterSeconds));
      ctx.body = errorPage({
        nonce,
        title: TITLES[failure.status] ?? 'Sign-in failed',
        message: failure.message,
        retry: failure.code !== 'self_serve_disabled',
      });
    }
  });
}

const TITLES: Partial<Record<AuthFailure['status'], string>> = {
  400: 'Sign-in expired',
  401: 'Sign-in not accepted',
  403: 'No key for your team',
  404: 'Self-serve keys are off',
  503: 'Sign-in service unavailable',
};

/** The JSON answer of POST /auth/token. */
function tokenAnswer(issued: IssuedKey, base: string): Record<string, unknown> {
  return {
    key: issued.secret,
    key_id: issued.keyId,
    prefix: issued.prefix,
    team: issued.team,
    generation: issued.generation,
    created: issued.created,
    budget_cents: issued.budgetCents,
    spent_cents: issued.spentCents,
    remaining_cents: issued.remainingCents,
    rpm: issued.rpm,
    base_url: base,
    openai_base_url: `${base}/v1`,
  };
}

/** Refusals are logged by code and reason only: never a token, a key or a claim value. */
function asFailure(error: unknown, selfServe: SelfServe | undefined, ctx: Koa.Context): AuthFailure {
  const log = selfServe?.log;
  if (error instanceof AuthFailure) {
    if (error.status >= 500) log?.warn({ code: error.code, requestId: ctx.state.requestId, err: error.cause }, 'self-serve key exchange failed');
    else
      log?.info({ code: error.code, reason: error.reason, status: error.status, method: ctx.method, requestId: ctx.state.requestId }, 'self-serve key refused');
    return error;
  }
  log?.error({ err: error, requestId: ctx.state.requestId }, 'self-serve key exchange failed unexpectedly');
  return new AuthFailure(503, 'internal_error', 'the key could not be issued because of an internal error; try again, and tell the operator if it persists');
}

/** A host as a browser sends it: name or IP, optional port. Anything else is not put into a snippet. */
const PLAIN_HOST = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/** public_url, or the request's own scheme and Host when none is configured. */
function baseUrl(ctx: Koa.Context, selfServe: SelfServe): string {
  if (selfServe.settings.publicUrl !== undefined) return selfServe.settings.publicUrl;
  const host = ctx.host;
  if (!PLAIN_HOST.test(host)) throw new AuthFailure(400, 'invalid_request', "the request's Host header is not a plain host name: set auth.public_url");
  return `${ctx.protocol}://${host}`;
}

/**
 * The sign-in cookie: HttpOnly, SameSite=Lax (the issuer's redirect back is a cross-site top-level
 * GET, which Strict would strip), scoped to this path, Secure when the gateway is reached over
 * https. Written by hand (read with ctx.cookies): Koa's cookies refuse to set Secure behind a TLS-terminating proxy.
 */
function setCookie(ctx: Koa.Context, selfServe: SelfServe, value: string): void {
  const secure = (selfServe.settings.publicUrl ?? `${ctx.protocol}:`).startsWith('https:');
  const maxAge = value === '' ? 0 : LOGIN_TTL_SECONDS;
  ctx.append('set-cookie', `${LOGIN_COOKIE}=${value}; Path=${AUTH_TOKEN_PATH}; Max-Age=${maxAge}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`);
}
