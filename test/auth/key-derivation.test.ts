// Self-serve key derivation: deterministic, different for every identity and generation, injective
// across field boundaries, and tied to the governance secret.
import { describe, expect, it } from 'vitest';
import { identityKeyDeriver } from '../../server/auth/key-derivation.ts';

const derive = identityKeyDeriver('secret-one');

describe('identityKeyDeriver', () => {
  it('gives the same identity and generation the same key, in the gateway key format', () => {
    const key = derive({ issuer: 'https://idp', subject: 'alice' }, 0);
    expect(key).toBe(identityKeyDeriver('secret-one')({ issuer: 'https://idp', subject: 'alice' }, 0));
    expect(key).toMatch(/^gwk_[A-Za-z0-9_-]{43}$/);
  });

  it('changes with the generation, the subject, the issuer and the secret', () => {
    const keys = [
      derive({ issuer: 'https://idp', subject: 'alice' }, 0),
      derive({ issuer: 'https://idp', subject: 'alice' }, 1),
      derive({ issuer: 'https://idp', subject: 'alicf' }, 0),
      derive({ issuer: 'https://idp/', subject: 'alice' }, 0),
      identityKeyDeriver('secret-two')({ issuer: 'https://idp', subject: 'alice' }, 0),
    ];
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('is injective where a naive join would not be: separators and unicode in the fields', () => {
    const pairs: [string, string][] = [
      ['https://idp|a', 'b'],
      ['https://idp', 'a|b'],
      ['https://idp|', 'ab'],
      ['https://idp', 'ä'],
      ['https://idp', 'a\u0308'],
      ['https://idp', ''],
    ];
    const keys = pairs.map(([issuer, subject]) => derive({ issuer, subject }, 0));
    expect(new Set(keys).size).toBe(pairs.length);
    // "sub 1, generation 0" versus "sub 10" plus nothing: the generation is length-prefixed too.
    expect(derive({ issuer: 'i', subject: 's1' }, 0)).not.toBe(derive({ issuer: 'i', subject: 's' }, 10));
  });

  it('refuses a generation that is not a whole number of at least 0', () => {
    for (const generation of [-1, 1.5, Number.NaN]) expect(() => derive({ issuer: 'i', subject: 's' }, generation)).toThrow(RangeError);
  });
});
