// Key material: the secret's format, the stored hash, the display prefix, and key ids.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { newKeyId } from '../../server/governance/key-id.ts';
import { displayPrefix, hashKeySecret, KEY_SECRET_PREFIX, newKeySecret } from '../../server/governance/key-secret.ts';

describe('key secrets', () => {
  it('are gwk_ and 256 random bits in base64url, never repeated', () => {
    const secrets = new Set(Array.from({ length: 1000 }, newKeySecret));
    expect(secrets.size).toBe(1000);
    for (const secret of secrets) {
      expect(secret).toMatch(/^gwk_[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(secret.slice(KEY_SECRET_PREFIX.length), 'base64url')).toHaveLength(32);
    }
  });

  it('are stored as HMAC-SHA256 under the server secret', () => {
    const secret = newKeySecret();
    expect(hashKeySecret('server', secret)).toEqual(createHmac('sha256', 'server').update(secret).digest());
    expect(hashKeySecret('server', secret)).not.toEqual(hashKeySecret('other', secret));
    expect(hashKeySecret('server', secret)).toHaveLength(32);
  });

  it('show 8 characters for recognition', () => {
    expect(displayPrefix('gwk_ABCDEFGH')).toBe('gwk_ABCD');
  });
});

describe('key ids', () => {
  it('are key_ and a ULID that sorts by creation time', () => {
    const ids = [0, 1, 1_700_000_000_000, 1_700_000_000_001, 2 ** 48 - 1].map((t) => newKeyId(t));
    for (const id of ids) expect(id).toMatch(/^key_[0-9ABCDEFGHJKMNPQRSTVWXYZ]{26}$/);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(Array.from({ length: 1000 }, () => newKeyId(5))).size).toBe(1000);
  });
});
