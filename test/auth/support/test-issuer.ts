// A real OpenID Connect issuer on loopback for the self-serve key tests: panva's oidc-provider with
// discovery, JWKS, the code flow with PKCE, UserInfo, and its development login form (any password).
// Its signing key is the test's own, so tests can also mint tokens with chosen claims and headers
// under the issuer's real key (the negative cases), and the JWKS requests are counted.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, exportSPKI, generateKeyPair, SignJWT, type JWTPayload } from 'jose';
import Provider, { type Configuration } from 'oidc-provider';
import * as oidc from 'openid-client';

export const GATEWAY_CLIENT_ID = 'gateway';
export const GATEWAY_CLIENT_SECRET = 'gateway-client-secret-for-tests';
/** A second, public client (a CLI): its ID tokens are what tests post to POST /auth/token. */
export const CLI_CLIENT_ID = 'gateway-cli';
const CLI_REDIRECT = 'http://127.0.0.1/cli-callback';
const SIGNING_KID = 'test-signing-key-1';

export interface TestAccount {
  /** The `team` claim: a string, a list (like a groups claim), or absent. */
  readonly team?: string | string[];
  /** The team is released only by UserInfo, not in ID tokens (as many issuers do). */
  readonly teamOnlyInUserinfo?: boolean;
}

export interface TestIssuer {
  /** The issuer identifier, e.g. http://127.0.0.1:41234 */
  readonly url: string;
  /** How many times the JWKS was fetched. */
  jwksFetches(): number;
  /** Brings the provider up, with the gateway's redirect URI registered (known once it listens). */
  register(gatewayRedirectUri: string): Promise<void>;
  /** A token under the issuer's real signing key (or `key`/`kid`/`alg` given), with these claims over sane defaults. */
  sign(
    claims: JWTPayload,
    options?: { kid?: string; alg?: string; key?: KeyPair['privateKey'] | Uint8Array; omitDefaults?: (keyof JWTPayload)[] },
  ): Promise<string>;
  /** The issuer's public key as PEM: what an alg-confusion attack uses as an HMAC secret. */
  publicKeyPem(): Promise<string>;
  /** Signs `login` in to the CLI client through the real code flow (login form and consent posted) and returns its tokens. */
  cliTokens(login: string): Promise<{ idToken: string; accessToken: string }>;
  /** A new signing key (new kid) replaces the published one. */
  rotateKey(): Promise<void>;
  /** Stops answering (connections refused from then on). */
  close(): Promise<void>;
}

type KeyPair = Awaited<ReturnType<typeof generateKeyPair>>;

export async function startTestIssuer(accounts: Record<string, TestAccount>): Promise<TestIssuer> {
  let handler: ((req: IncomingMessage, res: ServerResponse) => void) | undefined;
  let jwksFetches = 0;
  const server = createServer((req, res) => {
    if (req.url?.startsWith('/jwks')) jwksFetches++;
    if (handler === undefined) {
      res.writeHead(503).end();
      return;
    }
    handler(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let keys: KeyPair = await generateKeyPair('RS256', { extractable: true });
  let kid = SIGNING_KID;
  let redirectUri: string | undefined;

  const configuration = async (): Promise<Configuration> => ({
    clients: [
      {
        client_id: GATEWAY_CLIENT_ID,
        client_secret: GATEWAY_CLIENT_SECRET,
        redirect_uris: [redirectUri!],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
      {
        client_id: CLI_CLIENT_ID,
        redirect_uris: [CLI_REDIRECT],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
      },
    ],
    jwks: { keys: [{ ...(await exportJWK(keys.privateKey)), kid, alg: 'RS256', use: 'sig' }] as never },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'preferred_username'], team: ['team'] },
    scopes: ['openid', 'email', 'profile', 'team'],
    // Scope claims in ID tokens too (the default keeps them for UserInfo when an access token is issued).
    conformIdTokenClaims: false,
    pkce: { required: () => true },
    ttl: { Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
    cookies: { keys: ['test-issuer-cookie-key'] },
    features: { devInteractions: { enabled: true } },
    findAccount: (_ctx, id) => ({
      accountId: id,
      claims: (use) => {
        const account = accounts[id] ?? {};
        const team = account.team === undefined || (account.teamOnlyInUserinfo === true && use === 'id_token') ? {} : { team: account.team };
        return { sub: id, email: `${id}@example.com`, email_verified: true, name: id, preferred_username: id, ...team };
      },
    }),
  });

  const start = async () => {
    const provider = new Provider(url, await configuration());
    handler = provider.callback();
  };

  return {
    url,
    jwksFetches: () => jwksFetches,
    async register(gatewayRedirectUri) {
      redirectUri = gatewayRedirectUri;
      await start();
    },
    async sign(claims, options = {}) {
      const now = Math.floor(Date.now() / 1000);
      const defaults: JWTPayload = { iss: url, aud: CLI_CLIENT_ID, sub: 'alice', iat: now, exp: now + 600, team: 'ml' };
      for (const name of options.omitDefaults ?? []) delete defaults[name];
      return new SignJWT({ ...defaults, ...claims })
        .setProtectedHeader({ alg: options.alg ?? 'RS256', kid: options.kid ?? kid, typ: 'JWT' })
        .sign(options.key ?? keys.privateKey);
    },
    publicKeyPem: () => exportSPKI(keys.publicKey),
    async cliTokens(login) {
      await until(() => handler !== undefined);
      const client = await oidc.discovery(new URL(url), CLI_CLIENT_ID, undefined, oidc.None(), { execute: [oidc.allowInsecureRequests] });
      const verifier = oidc.randomPKCECodeVerifier();
      const nonce = oidc.randomNonce();
      const start = oidc.buildAuthorizationUrl(client, {
        redirect_uri: CLI_REDIRECT,
        scope: 'openid email profile team',
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        nonce,
      });
      const callback = await browseToRedirect(start.href, login, CLI_REDIRECT);
      const tokens = await oidc.authorizationCodeGrant(client, new URL(callback), { pkceCodeVerifier: verifier, expectedNonce: nonce, idTokenExpected: true });
      return { idToken: tokens.id_token!, accessToken: tokens.access_token };
    },
    async rotateKey() {
      keys = await generateKeyPair('RS256', { extractable: true });
      kid = `test-signing-key-${Date.now()}`;
      await start();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * Follows the issuer's redirects like a browser with a cookie jar, answering the development login
 * form (any password) and the consent form, until a redirect to `redirectPrefix`, which is returned
 * unvisited. `jar` holds the cookies (those of every host: the tests' servers are all on 127.0.0.1).
 */
export async function browseToRedirect(startUrl: string, login: string, redirectPrefix: string, jar = new Map<string, string>()): Promise<string> {
  let next: { url: string; method: 'GET' | 'POST'; body?: URLSearchParams } = { url: startUrl, method: 'GET' };
  for (let hop = 0; hop < 20; hop++) {
    if (next.url.startsWith(redirectPrefix)) return next.url;
    const res = await fetch(next.url, {
      method: next.method,
      redirect: 'manual',
      headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; '), ...(next.body && { 'content-type': 'application/x-www-form-urlencoded' }) },
      ...(next.body && { body: next.body }),
    });
    for (const cookie of res.headers.getSetCookie()) {
      const [pair] = cookie.split(';');
      const [name, ...value] = pair!.split('=');
      jar.set(name!.trim(), value.join('='));
    }
    const location = res.headers.get('location');
    if (location !== null) {
      next = { url: new URL(location, next.url).href, method: 'GET' };
      continue;
    }
    const page = await res.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(page)?.[1];
    if (action === undefined) throw new Error(`the issuer answered ${res.status} without a redirect or a form: ${page.slice(0, 300)}`);
    const form = new URLSearchParams();
    for (const input of page.matchAll(/<input[^>]*type="hidden"[^>]*name="([^"]+)"[^>]*value="([^"]*)"/g)) form.set(input[1]!, input[2]!);
    if (form.get('prompt') === 'login') {
      form.set('login', login);
      form.set('password', 'any password');
    }
    next = { url: new URL(action.replace(/&amp;/g, '&'), next.url).href, method: 'POST', body: form };
  }
  throw new Error('the sign-in did not come back within 20 redirects');
}

async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 20));
  if (!condition()) throw new Error('the test issuer did not start');
}
