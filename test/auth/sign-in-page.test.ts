// GET /auth/token over plain HTTP (the browser test drives the same flow in Chromium): the landing
// page, the redirect to the issuer with PKCE, state and nonce, the callback that answers with the
// key page once, and its headers. A callback cannot be replayed, forged or crossed with another
// sign-in.
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSelfServeGateway, type SelfServeGateway, type TokenAnswer } from './support/self-serve-gateway.ts';
import { browseToRedirect, GATEWAY_CLIENT_ID } from './support/test-issuer.ts';

let g: SelfServeGateway;
beforeAll(async () => {
  g = await startSelfServeGateway();
});
afterAll(() => g.close());

const cookieHeader = (jar: Map<string, string>) => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');

/** Starts a sign-in at the gateway and signs `login` in at the issuer: the callback URL, unvisited, and the cookie jar. */
async function signInUntilCallback(login: string): Promise<{ callback: string; jar: Map<string, string>; state: string }> {
  const jar = new Map<string, string>();
  const start = await fetch(`${g.h.url}/auth/token?sign_in=1`, { redirect: 'manual' });
  expect(start.status).toBe(303);
  for (const cookie of start.headers.getSetCookie()) {
    const [name, ...value] = cookie.split(';')[0]!.split('=');
    jar.set(name!, value.join('='));
  }
  const location = start.headers.get('location')!;
  const callback = await browseToRedirect(location, login, `${g.h.url}/auth/token?`, jar);
  return { callback, jar, state: new URL(location).searchParams.get('state')! };
}

function keyOf(page: string): string {
  const key = /<code id="key"[^>]*>([^<]+)<\/code>/.exec(page)?.[1];
  if (key === undefined) throw new Error(`no key on the page: ${page.slice(0, 500)}`);
  return key;
}

function expectPageHeaders(res: Response): string {
  expect(res.headers.get('cache-control')).toBe('no-store');
  expect(res.headers.get('referrer-policy')).toBe('no-referrer');
  expect(res.headers.get('x-frame-options')).toBe('DENY');
  expect(res.headers.get('x-content-type-options')).toBe('nosniff');
  const csp = res.headers.get('content-security-policy') ?? '';
  expect(csp).toContain("default-src 'none'");
  expect(csp).toContain("frame-ancestors 'none'");
  const nonce = /script-src 'nonce-([A-Za-z0-9+/=]+)'/.exec(csp)?.[1];
  expect(nonce).toBeDefined();
  return nonce!;
}

describe('the landing page', () => {
  it('explains and offers a sign-in link; strict CSP with a per-page nonce, nothing external', async () => {
    const res = await fetch(`${g.h.url}/auth/token`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const nonce = expectPageHeaders(res);
    const page = await res.text();
    expect(page).toContain('<html lang="en">');
    expect(page).toContain('href="?sign_in=1"');
    expect(page).toContain(`<style nonce="${nonce}">`);
    expect(page).not.toMatch(/(src|href)="(https?:)?\/\//); // no external asset
    const again = await fetch(`${g.h.url}/auth/token`);
    expect(expectPageHeaders(again)).not.toBe(nonce);
  });
});

describe('starting a sign-in', () => {
  it('redirects to the issuer with the code flow, PKCE S256, state and nonce, and seals them in an HttpOnly SameSite=Lax cookie', async () => {
    const res = await fetch(`${g.h.url}/auth/token?sign_in=1`, { redirect: 'manual' });
    expect(res.status).toBe(303);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const location = new URL(res.headers.get('location')!);
    expect(location.origin).toBe(g.issuer.url);
    const params = location.searchParams;
    expect(params.get('response_type')).toBe('code');
    expect(params.get('client_id')).toBe(GATEWAY_CLIENT_ID);
    expect(params.get('redirect_uri')).toBe(`${g.h.url}/auth/token`);
    expect(params.get('scope')).toBe('openid email profile team');
    expect(params.get('code_challenge_method')).toBe('S256');
    expect(params.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(params.get('state')).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    expect(params.get('nonce')).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    const [cookie] = res.headers.getSetCookie();
    expect(cookie).toMatch(/^gateway_sign_in=[A-Za-z0-9_.-]+; Path=\/auth\/token; Max-Age=600; HttpOnly; SameSite=Lax$/);
    // The cookie is sealed: neither the state nor the PKCE verifier can be read from it.
    const sealed = cookie!.split(';')[0]!.split('=')[1]!;
    const readable = sealed.split('.').map((part) => Buffer.from(part, 'base64url').toString('latin1'));
    for (const part of readable) expect(part).not.toContain(params.get('state')!);
  });
});

describe('the callback', () => {
  it("answers with the key page: the person's key (the same one POST /auth/token gives), team, budget and snippets with the real base URL", async () => {
    const { callback, jar } = await signInUntilCallback('alice');
    const res = await fetch(callback, { headers: { cookie: cookieHeader(jar) } });
    expect(res.status).toBe(200);
    const nonce = expectPageHeaders(res);
    expect(res.headers.getSetCookie()).toEqual(['gateway_sign_in=; Path=/auth/token; Max-Age=0; HttpOnly; SameSite=Lax']);
    const page = await res.text();
    const key = keyOf(page);
    expect(page).toContain('Signed in as <strong>alice@example.com</strong>, team <strong>ml</strong>');
    expect(page).toContain('$5.00 of $5.00');
    expect(page).toContain('30 requests per minute');
    expect(page).toContain(`export OPENAI_BASE_URL=&quot;${g.h.url}/v1&quot;`);
    expect(page).toContain(`export ANTHROPIC_BASE_URL=&quot;${g.h.url}&quot;`);
    expect(page).toContain(`curl &quot;${g.h.url}/v1/chat/completions&quot;`);
    expect(page).toContain(`<script nonce="${nonce}">`);

    // The same identity through the other door gets the same key.
    const posted = await g.exchange({ id_token: await g.issuer.sign({ sub: 'alice', team: 'ml' }) });
    expect(((await posted.json()) as TokenAnswer).key).toBe(key);

    const anthropic = new Anthropic({ baseURL: g.h.url, apiKey: key, maxRetries: 0 });
    const message = await anthropic.messages.create({ model: 'claude', max_tokens: 64, messages: [{ role: 'user', content: 'hello from the sign-in page' }] });
    expect(message.content[0]).toMatchObject({ type: 'text' });
  });

  it('cannot be reloaded: without the spent cookie, and with it replayed (the code is single use), it is a 400 that offers to start again', async () => {
    const { callback, jar } = await signInUntilCallback('bob');
    const first = await fetch(callback, { headers: { cookie: cookieHeader(jar) } });
    expect(first.status).toBe(200);
    keyOf(await first.text());

    const reload = await fetch(callback); // the browser dropped the cookie (Max-Age=0)
    expect(reload.status).toBe(400);
    const page = await reload.text();
    expect(page).toContain('Sign-in expired');
    expect(page).toContain('href="?sign_in=1"');
    expect(page).not.toContain('gwk_');

    const replay = await fetch(callback, { headers: { cookie: cookieHeader(jar) } }); // a kept copy of the cookie
    expect(replay.status).toBe(400);
    expect(await replay.text()).not.toContain('gwk_');
  });

  it("refuses a state that is not the browser's sign-in, and a forged cookie", async () => {
    const { callback, jar } = await signInUntilCallback('alice');
    const crossed = new URL(callback);
    crossed.searchParams.set('state', 'a-state-from-another-sign-in');
    const res = await fetch(crossed, { headers: { cookie: cookieHeader(jar) } });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('does not match the one your browser started');

    const forged = await fetch(callback, { headers: { cookie: 'gateway_sign_in=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' } });
    expect(forged.status).toBe(400);
  });

  it("shows the issuer's refusal (access_denied) and a person without a team gets a 403 page that says why", async () => {
    const { jar, state } = await signInUntilCallback('alice');
    const forgedError = await fetch(`${g.h.url}/auth/token?error=access_denied&state=not-this-sign-in`, { headers: { cookie: cookieHeader(jar) } });
    expect(forgedError.status).toBe(400); // the state is checked before an error is believed
    const denied = await fetch(`${g.h.url}/auth/token?${new URLSearchParams({ error: 'access_denied', state, iss: g.issuer.url })}`, {
      headers: { cookie: cookieHeader(jar) },
    });
    expect(denied.status).toBe(403);
    const deniedPage = await denied.text();
    expect(deniedPage).toContain('the issuer did not sign you in (access_denied)');
    expect(deniedPage).not.toContain('gwk_');

    const carol = await signInUntilCallback('carol');
    const res = await fetch(carol.callback, { headers: { cookie: cookieHeader(carol.jar) } });
    expect(res.status).toBe(403);
    const page = await res.text();
    expect(page).toContain('No key for your team');
    expect(page).toContain('carries no team');
  });
});

describe('the base URL', () => {
  it('with public_url: the redirect URI and snippets use it, and the cookie is Secure', async () => {
    const proxied = await startSelfServeGateway({ issuer: g.issuer, publicUrl: 'https://llm.example.com/' });
    try {
      const res = await fetch(`${proxied.h.url}/auth/token?sign_in=1`, { redirect: 'manual' });
      expect(res.status).toBe(303);
      expect(new URL(res.headers.get('location')!).searchParams.get('redirect_uri')).toBe('https://llm.example.com/auth/token');
      expect(res.headers.getSetCookie()[0]).toMatch(/; HttpOnly; SameSite=Lax; Secure$/);
      const posted = await proxied.exchange({ id_token: await g.issuer.sign({ sub: 'alice' }) });
      expect(await posted.json()).toMatchObject({ base_url: 'https://llm.example.com', openai_base_url: 'https://llm.example.com/v1' });
    } finally {
      await proxied.close();
    }
  });

  it('without it, a Host header that is not a plain host name is refused rather than put into a redirect or a snippet', async () => {
    const { request } = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      const url = new URL(g.h.url);
      const req = request({ host: url.hostname, port: url.port, path: '/auth/token?sign_in=1', headers: { host: 'evil.example.com"$(touch x)' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(400);
  });
});
