import { hashKeySecret } from './key-secret.ts';

/** Secrets remembered at most; past this the memory is emptied and refilled by the keys in use. */
const REMEMBERED = 4096;

/**
 * A presented secret's lookup key in the key indexes: its HMAC-SHA256 under the server secret, in
 * base64. A client presents the same secret on every request, and the HMAC (an OpenSSL context set
 * up and torn down each time) was the owner's dearest step of a request's authentication, so the
 * lookup key of a secret that named a key is remembered.
 *
 * Never stale: the hash is a function of the secret and the server secret alone, which is fixed
 * while the store is open. A rotation, a revocation or an expiry changes what a hash names (the
 * key indexes, checked at every request), never the hash, so a remembered secret is refused exactly
 * as one hashed again would be. Only secrets that named a key are remembered: a client sending
 * random ones cannot push the keys in use out, nor grow memory. The secrets are held in clear here,
 * as every request's headers hold them while it runs.
 */
export class SecretHashes {
  readonly #serverSecret: string;
  readonly #known = new Map<string, string>();

  constructor(serverSecret: string) {
    this.#serverSecret = serverSecret;
  }

  /** The lookup key of `secret`: remembered, or hashed now. */
  lookupKey(secret: string): string {
    return this.#known.get(secret) ?? hashKeySecret(this.#serverSecret, secret).toString('base64');
  }

  /** `secret` named a key: its lookup key is kept for the next request. */
  remember(secret: string, lookupKey: string): void {
    if (this.#known.has(secret)) return;
    if (this.#known.size >= REMEMBERED) this.#known.clear();
    this.#known.set(secret, lookupKey);
  }
}
