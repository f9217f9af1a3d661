// The sealed sign-in cookie: it round-trips, and a tampered, foreign or stale one opens as nothing.
import { describe, expect, it } from 'vitest';
import { LOGIN_TTL_SECONDS, LoginSeal, type LoginState } from '../../server/auth/login-cookie.ts';

const LOGIN: LoginState = { state: 'st', nonce: 'nn', verifier: 'vv'.repeat(22), redirectUri: 'https://llm.example.com/auth/token', startedAt: 1_000_000 };

describe('LoginSeal', () => {
  const seal = new LoginSeal('governance-secret');

  it('opens what it sealed, within the time a sign-in may take', () => {
    const sealed = seal.seal(LOGIN);
    expect(sealed).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(seal.open(sealed, LOGIN.startedAt + 1000)).toEqual(LOGIN);
    expect(seal.seal(LOGIN)).not.toBe(sealed); // a fresh IV each time
  });

  it('opens nothing for a stale, tampered, foreign, empty or garbage cookie', () => {
    const sealed = seal.seal(LOGIN);
    expect(seal.open(sealed, LOGIN.startedAt + LOGIN_TTL_SECONDS * 1000 + 1)).toBeUndefined();
    expect(seal.open(sealed, LOGIN.startedAt - 1)).toBeUndefined();
    const bytes = Buffer.from(sealed, 'base64url');
    bytes[20]! ^= 1;
    expect(seal.open(bytes.toString('base64url'), LOGIN.startedAt)).toBeUndefined();
    expect(new LoginSeal('another-secret').open(sealed, LOGIN.startedAt)).toBeUndefined();
    for (const junk of [undefined, '', 'abc', 'not base64!', 'A'.repeat(40)]) expect(seal.open(junk, LOGIN.startedAt)).toBeUndefined();
  });

  it('does not show the state, nonce or verifier in the cookie', () => {
    const text = Buffer.from(seal.seal(LOGIN), 'base64url').toString('latin1');
    for (const value of [LOGIN.verifier, LOGIN.redirectUri, '"state"']) expect(text).not.toContain(value);
  });
});
