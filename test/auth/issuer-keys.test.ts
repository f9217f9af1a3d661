// The issuer side of POST /auth/token: the JWKS is cached, fetched again for an unknown key id at
// most once per cooldown (a flood of made-up kids cannot make the gateway hammer the issuer), a
// rotated key is picked up, and an issuer that is down answers 503 without touching other routes.
import { generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSelfServeGateway, type ErrorAnswer, type SelfServeGateway } from './support/self-serve-gateway.ts';

const COOLDOWN_MS = 1500;

let g: SelfServeGateway;
beforeAll(async () => {
  g = await startSelfServeGateway({ timings: { jwksCooldownMs: COOLDOWN_MS } });
});
afterAll(() => g.close());

describe('JWKS', () => {
  it('a flood of unknown key ids fetches the JWKS at most once per cooldown; a rotated key is picked up after it', async () => {
    const firstFetchAt = Date.now();
    expect((await g.exchange({ id_token: await g.issuer.sign({ sub: 'alice' }) })).status).toBe(200);
    const afterFirst = g.issuer.jwksFetches();
    expect(afterFirst).toBe(1);

    const stranger = await generateKeyPair('RS256');
    for (let i = 0; i < 25; i++) {
      const token = await g.issuer.sign({}, { kid: `made-up-${i}`, key: stranger.privateKey });
      const res = await g.exchange({ id_token: token });
      expect(res.status).toBe(401);
      expect(((await res.json()) as ErrorAnswer).error.reason).toBe('unknown_key');
    }
    // At most one fetch per cooldown since the first (none at all when the flood was quicker).
    const cooldownsPassed = Math.floor((Date.now() - firstFetchAt) / COOLDOWN_MS);
    expect(g.issuer.jwksFetches() - afterFirst).toBeLessThanOrEqual(cooldownsPassed);

    await g.issuer.rotateKey();
    await new Promise((resolve) => setTimeout(resolve, COOLDOWN_MS + 100));
    const beforeRotated = g.issuer.jwksFetches();
    const rotated = await g.exchange({ id_token: await g.issuer.sign({ sub: 'alice' }) });
    expect(rotated.status).toBe(200); // new kid: one refetch, then it verifies
    expect(g.issuer.jwksFetches() - beforeRotated).toBe(1);
  });
});

describe('an issuer that is down', () => {
  it('gets 503 issuer_unavailable with Retry-After on /auth/token; the data plane keeps serving', async () => {
    const lone = await startSelfServeGateway();
    try {
      await lone.issuer.close();
      const res = await lone.exchange({ id_token: 'a.b.c' });
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('5');
      expect(((await res.json()) as ErrorAnswer).error.code).toBe('issuer_unavailable');
      const health = await fetch(`${lone.h.url}/healthz`);
      expect(health.status).toBe(200);
      const page = await fetch(`${lone.h.url}/auth/token?sign_in=1`, { redirect: 'manual' });
      expect(page.status).toBe(503);
      expect(await page.text()).toContain('Sign-in service unavailable');
    } finally {
      await lone.close();
    }
  });
});
