// POST /auth/token against a real OIDC issuer (oidc-provider on loopback): a person's ID token from
// the issuer's own code flow becomes their key, the same one every time, budgeted from their team's
// child_default, usable at once on the data plane with governance on; revocation moves them to a
// new key. Every refused token is refused with the right status and reason, and writes nothing.
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GATEWAY_CLIENT_ID } from './support/test-issuer.ts';
import { startSelfServeGateway, type ErrorAnswer, type SelfServeGateway, type TokenAnswer } from './support/self-serve-gateway.ts';
import { expectSpecShape } from './support/spec-schemas.ts';

let g: SelfServeGateway;
beforeAll(async () => {
  g = await startSelfServeGateway();
});
afterAll(() => g.close());

const keyCount = () => g.h.gateway.governance!.listKeys().length;

async function exchangeOk(idToken: string): Promise<TokenAnswer> {
  const res = await g.exchange({ id_token: idToken });
  const body = (await res.json()) as TokenAnswer | ErrorAnswer;
  expect(res.status, JSON.stringify(body)).toBe(200);
  expect(res.headers.get('cache-control')).toBe('no-store');
  expectSpecShape('SelfServeKey', body);
  return body as TokenAnswer;
}

async function refused(idToken: string, status: number): Promise<ErrorAnswer['error']> {
  const before = keyCount();
  const res = await g.exchange({ id_token: idToken });
  const body = (await res.json()) as ErrorAnswer;
  expect(res.status, JSON.stringify(body)).toBe(status);
  expect(JSON.stringify(body)).not.toContain(idToken);
  expect(keyCount()).toBe(before); // nothing written for a refused token
  expectSpecShape('ErrorView', body);
  return body.error;
}

describe('a valid ID token', () => {
  it("gives the caller a key budgeted from the team's child_default that serves a chat completion at once", async () => {
    const { idToken } = await g.issuer.cliTokens('alice');
    const answer = await exchangeOk(idToken);
    expect(answer).toMatchObject({
      team: 'ml',
      generation: 0,
      created: true,
      budget_cents: 500,
      spent_cents: 0,
      remaining_cents: 500,
      rpm: 30,
      base_url: g.h.url,
      openai_base_url: `${g.h.url}/v1`,
    });
    expect(answer.key).toMatch(/^gwk_[A-Za-z0-9_-]{43}$/);
    expect(answer.prefix).toBe(answer.key.slice(0, 8));

    const record = g.h.gateway.governance!.getKey(answer.key_id)!;
    expect(record).toMatchObject({ budgetMicrocents: 500_000_000n, rpm: 30, owner: 'alice@example.com', name: 'self-serve (ml)', revokedAt: null });

    const client = new OpenAI({ baseURL: answer.openai_base_url, apiKey: answer.key, maxRetries: 0 });
    const completion = await client.chat.completions.create({ model: 'gpt', messages: [{ role: 'user', content: 'hello from a self-serve key' }] });
    expect(completion.choices[0]?.message.content).toContain('hello from a self-serve key');
    const spent = g.h.gateway.governance!.getKey(answer.key_id)!.spentMicrocents;
    expect(spent).toBeGreaterThan(0n); // the request was charged to this key's budget
  });

  it('gives the same identity the same key every time, without resetting its spend', async () => {
    const first = await exchangeOk((await g.issuer.cliTokens('alice')).idToken);
    const again = await exchangeOk((await g.issuer.cliTokens('alice')).idToken);
    expect(again.key).toBe(first.key);
    expect(again.key_id).toBe(first.key_id);
    expect(again.created).toBe(false);
    expect(again.spent_cents).toBeGreaterThan(0); // spent by the completion above: not reset
    const bob = await exchangeOk((await g.issuer.cliTokens('bob')).idToken);
    expect(bob.key).not.toBe(first.key);
  });

  it('takes the first configured team of a list claim (groups)', async () => {
    const bob = await exchangeOk((await g.issuer.cliTokens('bob')).idToken);
    expect(bob).toMatchObject({ team: 'research', budget_cents: 120, rpm: null });
  });

  it('after the key is revoked on the admin API, the next exchange issues a new key (next generation, fresh budget), never the revoked one', async () => {
    const before = await exchangeOk(await g.issuer.sign({ sub: 'frank', team: 'ml' }));
    const revoke = await fetch(`${g.h.adminUrl}/api/v1/admin/keys/${before.key_id}`, { method: 'DELETE' });
    expect(revoke.status).toBe(200);
    const after = await exchangeOk(await g.issuer.sign({ sub: 'frank', team: 'ml' }));
    expect(after).toMatchObject({ generation: 1, created: true, remaining_cents: 500 });
    expect(after.key).not.toBe(before.key);
    expect(after.key_id).not.toBe(before.key_id);
    const chat = (key: string) =>
      fetch(`${g.h.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}` },
        body: JSON.stringify({ model: 'gpt', messages: [{ role: 'user', content: 'x' }] }),
      });
    expect((await chat(before.key)).status).toBe(401);
    expect((await chat(after.key)).status).toBe(200);
    expect((await exchangeOk(await g.issuer.sign({ sub: 'frank', team: 'ml' }))).key).toBe(after.key);
  });

  it('two exchanges at once for one identity create one key', async () => {
    const before = keyCount();
    const tokens = await Promise.all(Array.from({ length: 8 }, () => g.issuer.sign({ sub: 'grace', team: 'ml' })));
    const answers = await Promise.all(tokens.map(exchangeOk));
    expect(new Set(answers.map((a) => a.key)).size).toBe(1);
    expect(answers.filter((a) => a.created)).toHaveLength(1);
    expect(keyCount()).toBe(before + 1);
  });
});

describe('refused tokens', () => {
  const now = () => Math.floor(Date.now() / 1000);

  it('expired: 401 expired', async () => {
    expect(await refused(await g.issuer.sign({ iat: now() - 400, exp: now() - 120 }), 401)).toMatchObject({ code: 'invalid_token', reason: 'expired' });
  });

  it('not yet valid (nbf, or iat, in the future beyond the clock tolerance): 401 not_yet_valid', async () => {
    expect(await refused(await g.issuer.sign({ nbf: now() + 300 }), 401)).toMatchObject({ code: 'invalid_token', reason: 'not_yet_valid' });
    expect(await refused(await g.issuer.sign({ iat: now() + 300, exp: now() + 900 }), 401)).toMatchObject({ reason: 'not_yet_valid' });
    await exchangeOk(await g.issuer.sign({ sub: 'ivan', nbf: now() + 10 })); // within the 30 s tolerance
  });

  it('issued longer ago than max_token_age, though unexpired: 401 too_old', async () => {
    expect(await refused(await g.issuer.sign({ iat: now() - 3600, exp: now() + 3600 }), 401)).toMatchObject({ reason: 'too_old' });
  });

  it('wrong audience, and several audiences without an accepted azp: 401 audience', async () => {
    expect(await refused(await g.issuer.sign({ aud: 'another-app' }), 401)).toMatchObject({ reason: 'audience' });
    expect(await refused(await g.issuer.sign({ aud: [GATEWAY_CLIENT_ID, 'another-app'] }), 401)).toMatchObject({ reason: 'audience' });
    expect(await refused(await g.issuer.sign({ aud: [GATEWAY_CLIENT_ID, 'another-app'], azp: 'another-app' }), 401)).toMatchObject({ reason: 'audience' });
    await exchangeOk(await g.issuer.sign({ aud: [GATEWAY_CLIENT_ID, 'another-app'], azp: GATEWAY_CLIENT_ID }));
  });

  it('wrong issuer, including the trailing-slash variant: 401 issuer', async () => {
    expect(await refused(await g.issuer.sign({ iss: 'https://login.example.com' }), 401)).toMatchObject({ reason: 'issuer' });
    expect(await refused(await g.issuer.sign({ iss: `${g.issuer.url}/` }), 401)).toMatchObject({ reason: 'issuer' });
  });

  it('signed by a key the issuer does not publish (unknown kid): 401 unknown_key', async () => {
    const { generateKeyPair } = await import('jose');
    const stranger = await generateKeyPair('RS256');
    expect(await refused(await g.issuer.sign({}, { kid: 'not-a-published-kid', key: stranger.privateKey }), 401)).toMatchObject({ reason: 'unknown_key' });
  });

  it('alg none: 401 algorithm', async () => {
    const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const valid = await g.issuer.sign({});
    const payload = JSON.parse(Buffer.from(valid.split('.')[1]!, 'base64url').toString());
    const unsecured = `${part({ alg: 'none', typ: 'JWT' })}.${part(payload)}.`;
    expect(await refused(unsecured, 401)).toMatchObject({ reason: 'algorithm' });
  });

  it("HS256 signed with the issuer's public key as the secret (algorithm confusion): 401 algorithm", async () => {
    const secret = new TextEncoder().encode(await g.issuer.publicKeyPem());
    expect(await refused(await g.issuer.sign({}, { alg: 'HS256', key: secret }), 401)).toMatchObject({ reason: 'algorithm' });
  });

  it('a tampered payload under the original signature: 401 signature', async () => {
    const [header, payload, signature] = (await g.issuer.sign({ sub: 'mallory' })).split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
    const forged = Buffer.from(JSON.stringify({ ...claims, sub: 'alice' })).toString('base64url');
    expect(await refused(`${header}.${forged}.${signature}`, 401)).toMatchObject({ reason: 'signature' });
  });

  it('no sub: 401 claims', async () => {
    expect(await refused(await g.issuer.sign({}, { omitDefaults: ['sub'] }), 401)).toMatchObject({ reason: 'claims' });
  });

  it('no team claim, and a team that is not configured: 403 team_not_allowed, saying why', async () => {
    const missing = await refused((await g.issuer.cliTokens('carol')).idToken, 403);
    expect(missing).toMatchObject({ code: 'team_not_allowed' });
    expect(missing.message).toContain('carries no team (claim "team")');
    const unknown = await refused((await g.issuer.cliTokens('dave')).idToken, 403);
    expect(unknown.message).toContain('"marketing"');
    expect(unknown.message).toContain('ml, research');
  });
});

describe('malformed requests', () => {
  it('400 for a body without id_token, a non-JWT id_token, or invalid JSON; 415 for another media type; 413 past 16 KiB', async () => {
    const cases: [BodyInit, Record<string, string>, number, string][] = [
      ['{}', {}, 400, 'invalid_request'],
      ['{"id_token": 42}', {}, 400, 'invalid_request'],
      ['{"id_token": "not a jwt"}', {}, 400, 'malformed_token'],
      ['{"id_token": "a.b.c.d.e"}', {}, 400, 'malformed_token'],
      ['{"id_token": ', {}, 400, 'invalid_request'],
      ['[1]', {}, 400, 'invalid_request'],
      ['id_token=x', { 'content-type': 'text/plain' }, 415, 'unsupported_media_type'],
      [JSON.stringify({ id_token: 'x'.repeat(17 * 1024) }), {}, 413, 'request_too_large'],
    ];
    const before = keyCount();
    for (const [body, headers, status, code] of cases) {
      const res = await g.exchange(body as string, headers);
      expect(res.status, String(body).slice(0, 40)).toBe(status);
      expect(((await res.json()) as ErrorAnswer).error.code).toBe(code);
    }
    expect(keyCount()).toBe(before);
  });

  it('accepts the same fields form-encoded (curl -d id_token=...)', async () => {
    const token = await g.issuer.sign({ sub: 'heidi', team: 'ml' });
    const res = await g.exchange(new URLSearchParams({ id_token: token }).toString(), { 'content-type': 'application/x-www-form-urlencoded' });
    expect(res.status).toBe(200);
  });

  it('other methods get 405 with Allow: GET, POST', async () => {
    const res = await fetch(`${g.h.url}/auth/token`, { method: 'PUT' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, POST');
  });
});
