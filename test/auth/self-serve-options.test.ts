// The settings around the exchange: a default team for people without a configured one, the team
// read from UserInfo with the access token, and a gateway where self-serve keys are off.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness } from '../support/gateway-harness.ts';
import { startSelfServeGateway, type ErrorAnswer, type SelfServeGateway, type TokenAnswer } from './support/self-serve-gateway.ts';
import { startTestIssuer, type TestIssuer } from './support/test-issuer.ts';
import { ACCOUNTS } from './support/self-serve-gateway.ts';

let issuer: TestIssuer;
beforeAll(async () => {
  issuer = await startTestIssuer(ACCOUNTS);
  await issuer.register('http://127.0.0.1/unused');
});
afterAll(() => issuer.close());

describe('default_team', () => {
  let g: SelfServeGateway;
  beforeAll(async () => {
    g = await startSelfServeGateway({ issuer, oidcYaml: '    default_team: research\n' });
  });
  afterAll(() => g.close());

  it('takes in people whose claim is missing or names no configured team; a configured team still wins', async () => {
    for (const [login, team] of [
      ['carol', 'research'],
      ['dave', 'research'],
      ['alice', 'ml'],
    ] as const) {
      const res = await g.exchange({ id_token: (await issuer.cliTokens(login)).idToken });
      expect(res.status).toBe(200);
      expect(((await res.json()) as TokenAnswer).team).toBe(team);
    }
  });
});

describe('userinfo: on', () => {
  let g: SelfServeGateway;
  beforeAll(async () => {
    g = await startSelfServeGateway({ issuer, oidcYaml: '    userinfo: on\n' });
  });
  afterAll(() => g.close());

  it('reads the team from UserInfo with the access token, when the ID token does not carry it', async () => {
    const tokens = await issuer.cliTokens('erin');
    const claims = JSON.parse(Buffer.from(tokens.idToken.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
    expect(claims.team).toBeUndefined(); // only UserInfo releases erin's team
    const res = await g.exchange({ id_token: tokens.idToken, access_token: tokens.accessToken });
    expect(res.status).toBe(200);
    expect(((await res.json()) as TokenAnswer).team).toBe('ml');
  });

  it('400 without an access token; 401 for one the issuer refuses or one of another person', async () => {
    const erin = await issuer.cliTokens('erin');
    const missing = await g.exchange({ id_token: erin.idToken });
    expect(missing.status).toBe(400);
    expect(((await missing.json()) as ErrorAnswer).error.message).toContain('access_token is required');
    const bogus = await g.exchange({ id_token: erin.idToken, access_token: 'not-a-token-the-issuer-made' });
    expect(bogus.status).toBe(401);
    expect(((await bogus.json()) as ErrorAnswer).error.reason).toBe('access_token');
    const alice = await issuer.cliTokens('alice');
    const swapped = await g.exchange({ id_token: erin.idToken, access_token: alice.accessToken });
    expect(swapped.status).toBe(401); // UserInfo answers for alice, not for the ID token's erin
  });
});

describe('self-serve keys off', () => {
  it('POST answers 404 self_serve_disabled in JSON and GET a page that says so; nothing else changes', async () => {
    const h = await startHarness({ extraYaml: 'db_path: ./gateway.db\ngovernance: on\n' });
    try {
      const post = await fetch(`${h.url}/auth/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"id_token":"a.b.c"}' });
      expect(post.status).toBe(404);
      const body = (await post.json()) as ErrorAnswer;
      expect(body.error.code).toBe('self_serve_disabled');
      expect(body.error.message).toContain('auth.oidc');
      const page = await fetch(`${h.url}/auth/token`);
      expect(page.status).toBe(404);
      expect(page.headers.get('content-type')).toContain('text/html');
      expect(await page.text()).toContain('Self-serve keys are off');
    } finally {
      await h.close();
    }
  });
});
