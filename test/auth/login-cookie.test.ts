// The sealed sign-in cookie: a compact JWE that round-trips, and a tampered, foreign, stale or
// oversized one opens as nothing.
import { EncryptJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { LOGIN_COOKIE_MAX_CHARS, LOGIN_TTL_SECONDS, LoginSeal, type LoginState } from '../../server/auth/login-cookie.ts';

// State, nonce and verifier at the 43 characters openid-client draws.
const LOGIN: LoginState = {
  state: 's'.repeat(43),
  nonce: 'n'.repeat(43),
  verifier: 'v'.repeat(43),
  redirectUri: 'https://llm.example.com/auth/token',
  startedAt: 1_000_000,
};

/** Flips one bit in the decoded bytes of the compact JWE's `segment`-th part. */
function flipBit(sealed: string, segment: number): string {
  const parts = sealed.split('.');
  const bytes = Buffer.from(parts[segment]!, 'base64url');
  bytes[0]! ^= 1;
  parts[segment] = bytes.toString('base64url');
  return parts.join('.');
}

describe('LoginSeal', () => {
  const seal = new LoginSeal('governance-secret');

  it('opens what it sealed, within the time a sign-in may take', async () => {
    const sealed = await seal.seal(LOGIN);
    expect(sealed.split('.')).toHaveLength(5); // compact JWE: header, (empty) key, iv, ciphertext, tag
    expect(sealed).toMatch(/^[A-Za-z0-9_-]+\.\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(await seal.open(sealed, LOGIN.startedAt + 1000)).toEqual(LOGIN);
    expect(await seal.open(sealed, LOGIN.startedAt + (LOGIN_TTL_SECONDS - 1) * 1000)).toEqual(LOGIN);
    expect(await seal.seal(LOGIN)).not.toBe(sealed); // a fresh IV each time
  });

  it('opens nothing once the sign-in has expired, or before it started', async () => {
    const sealed = await seal.seal(LOGIN);
    expect(await seal.open(sealed, LOGIN.startedAt + LOGIN_TTL_SECONDS * 1000 + 1)).toBeUndefined();
    expect(await seal.open(sealed, LOGIN.startedAt + 3_600_000)).toBeUndefined();
    expect(await seal.open(sealed, LOGIN.startedAt - 1)).toBeUndefined();
  });

  it('opens nothing when any part of the cookie was tampered with', async () => {
    const sealed = await seal.seal(LOGIN);
    for (const segment of [0, 2, 3, 4]) expect(await seal.open(flipBit(sealed, segment), LOGIN.startedAt)).toBeUndefined();
    expect(await seal.open(`${sealed}A`, LOGIN.startedAt)).toBeUndefined();
  });

  it('opens nothing sealed under another secret, nor a JWE of another type under the same key', async () => {
    const sealed = await seal.seal(LOGIN);
    expect(await new LoginSeal('another-secret').open(sealed, LOGIN.startedAt)).toBeUndefined();
    // A JWE the same class could not have written (no `typ`): refused although it decrypts.
    const { hkdfSync } = await import('node:crypto');
    const key = new Uint8Array(hkdfSync('sha256', 'governance-secret', Buffer.alloc(0), 'gateway self-serve sign-in cookie v2', 32));
    const untyped = await new EncryptJWT({ ...LOGIN })
      .setProtectedHeader({ alg: 'dir', enc: 'A256GCM' })
      .setIssuedAt(1000)
      .setNotBefore(1000)
      .setExpirationTime(1600)
      .encrypt(key);
    expect(await seal.open(untyped, LOGIN.startedAt)).toBeUndefined();
  });

  it('opens nothing for an empty, garbage or oversized cookie', async () => {
    for (const junk of [undefined, '', 'abc', 'not base64!', 'A'.repeat(40), 'a.b.c.d.e', 'A'.repeat(LOGIN_COOKIE_MAX_CHARS + 1)]) {
      expect(await seal.open(junk, LOGIN.startedAt)).toBeUndefined();
    }
    // A real sealed sign-in past the limit: it would decrypt, so only the length check refuses it.
    const oversized = await seal.seal({ ...LOGIN, redirectUri: `https://llm.example.com/${'p'.repeat(LOGIN_COOKIE_MAX_CHARS)}` });
    expect(oversized.length).toBeGreaterThan(LOGIN_COOKIE_MAX_CHARS);
    expect(await seal.open(oversized, LOGIN.startedAt)).toBeUndefined();
  });

  it('stays well under the 4096 bytes a browser keeps, even with a long redirect URI', async () => {
    expect((await seal.seal(LOGIN)).length).toBeLessThan(700);
    const long = await seal.seal({ ...LOGIN, redirectUri: `https://${'a'.repeat(200)}.example.com/auth/token` });
    expect(long.length).toBeLessThan(LOGIN_COOKIE_MAX_CHARS);
    expect(await seal.open(long, LOGIN.startedAt)).toBeDefined();
  });

  it('does not show the state, nonce or verifier in the cookie', async () => {
    const text = (await seal.seal(LOGIN))
      .split('.')
      .map((part) => Buffer.from(part, 'base64url').toString('latin1'))
      .join('\n');
    for (const value of [LOGIN.verifier, LOGIN.redirectUri, '"state"', '"nonce"']) expect(text).not.toContain(value);
  });
});
