import { randomBytes } from 'node:crypto';

/** Crockford base32: no I, L, O, U, so an id read aloud or retyped survives. */
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * `key_` + a ULID: 48 bits of creation time (ms) then 80 random bits, 26 characters that sort by
 * creation time. Not secret: it names the key in the admin API and the ledger.
 */
export function newKeyId(nowMs: number): string {
  let time = '';
  let t = Math.max(0, Math.floor(nowMs));
  for (let i = 0; i < 10; i++) {
    time = ALPHABET[t % 32] + time;
    t = Math.floor(t / 32);
  }
  const random = randomBytes(16);
  let tail = '';
  for (let i = 0; i < 16; i++) tail += ALPHABET[random[i]! % 32];
  return `key_${time}${tail}`;
}
