import { createHmac, randomBytes } from 'node:crypto';

/** Every gateway key starts with this, so secret scanners and people can recognise one. */
export const KEY_SECRET_PREFIX = 'gwk_';

/** Characters of the secret kept in clear (for recognition in lists); the prefix and 4 random ones. */
const DISPLAY_PREFIX_LENGTH = 8;

/** A new client secret: 256 random bits. Shown once, at creation; never stored. */
export function newKeySecret(): string {
  return KEY_SECRET_PREFIX + randomBytes(32).toString('base64url');
}

export function displayPrefix(secret: string): string {
  return secret.slice(0, DISPLAY_PREFIX_LENGTH);
}

/**
 * What the store keeps instead of the secret: HMAC-SHA256 under the server secret. 256 random bits
 * need no slow KDF, and with the server secret kept outside the database a stolen file cannot even
 * confirm a guessed key. Lookups by this hash are no timing oracle: a caller cannot steer it.
 */
export function hashKeySecret(serverSecret: string, secret: string): Buffer {
  return createHmac('sha256', serverSecret).update(secret).digest();
}
