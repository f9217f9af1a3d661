// The remembered hashes of presented secrets (secret-hashes.ts): the same lookup key as hashing
// again, kept only for secrets that named a key, and bounded.
import { describe, expect, it } from 'vitest';
import { hashKeySecret, newKeySecret } from '../../server/governance/key-secret.ts';
import { SecretHashes } from '../../server/governance/secret-hashes.ts';

const base64 = (serverSecret: string, secret: string) => hashKeySecret(serverSecret, secret).toString('base64');

describe('SecretHashes', () => {
  it('gives the base64 HMAC under the server secret, remembered or not', () => {
    const hashes = new SecretHashes('server');
    const secret = newKeySecret();
    const key = hashes.lookupKey(secret);
    expect(key).toBe(base64('server', secret));
    hashes.remember(secret, key);
    expect(hashes.lookupKey(secret)).toBe(key);
    expect(new SecretHashes('other').lookupKey(secret)).not.toBe(key);
  });

  it('answers a remembered secret from memory, without hashing it again', () => {
    const hashes = new SecretHashes('server');
    // A lookup key no HMAC gives: only memory can answer it.
    hashes.remember('gwk_remembered', 'from-memory');
    expect(hashes.lookupKey('gwk_remembered')).toBe('from-memory');
    expect(hashes.lookupKey('gwk_other')).toBe(base64('server', 'gwk_other'));
  });

  it('holds at most 4096 secrets: when full it starts again, and every answer stays right', () => {
    const hashes = new SecretHashes('server');
    for (let i = 0; i < 4096; i++) hashes.remember(`gwk_${i}`, `k${i}`);
    expect(hashes.lookupKey('gwk_0')).toBe('k0');
    expect(hashes.lookupKey('gwk_4095')).toBe('k4095');
    hashes.remember('gwk_next', 'next');
    expect(hashes.lookupKey('gwk_next')).toBe('next');
    expect(hashes.lookupKey('gwk_0')).toBe(base64('server', 'gwk_0')); // forgotten: hashed again
  });
});
