import { createHmac, hkdfSync } from 'node:crypto';
import { KEY_SECRET_PREFIX } from '../governance/key-secret.ts';
import type { IdentityRef } from '../governance/identities.ts';

/** Changing what is derived (label, field encoding) means a new version here, never an edit. */
const DERIVATION_INFO = 'gateway self-serve key derivation v1';
const KEY_LABEL = 'gateway-self-serve-key-v1';

/** The secret of one generation of one identity's key. */
export type IdentityKeyDeriver = (identity: IdentityRef, generation: number) => string;

/**
 * Self-serve keys are HMAC-SHA256(k, label ‖ issuer ‖ subject ‖ generation), where k is derived
 * (HKDF) from governance_secret for this one purpose, so it is never the same key that hashes the
 * stored secrets. Each field is length-prefixed, so no two identities encode alike (a `|` or any
 * other byte in a subject cannot shift a boundary). The result has the format of every other key
 * (`gwk_` + 43 base64url characters, 256 bits), and only its HMAC hash is stored, as for any key.
 */
export function identityKeyDeriver(governanceSecret: string): IdentityKeyDeriver {
  const key = Buffer.from(hkdfSync('sha256', governanceSecret, Buffer.alloc(0), DERIVATION_INFO, 32));
  return (identity, generation) => {
    if (!Number.isSafeInteger(generation) || generation < 0) throw new RangeError(`a key generation is a whole number of at least 0 (got ${generation})`);
    const mac = createHmac('sha256', key);
    for (const field of [KEY_LABEL, identity.issuer, identity.subject, String(generation)]) {
      const bytes = Buffer.from(field, 'utf8');
      const length = Buffer.alloc(4);
      length.writeUInt32BE(bytes.length);
      mac.update(length).update(bytes);
    }
    return KEY_SECRET_PREFIX + mac.digest('base64url');
  };
}
