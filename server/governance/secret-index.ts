/**
 * Secret hash → key id, in memory, so authentication is one HMAC and one map lookup. Each key has
 * its current hash and, after a rotation with a grace, the previous one until a deadline: the one
 * previous hash per key is what lets a client switch secrets without an outage, and its deadline is
 * checked at every lookup, so at that instant the old secret becomes an unknown key (401
 * invalid_api_key) with nothing to sweep.
 */
export class SecretIndex {
  /** base64 hash → key id, current secrets. */
  readonly #current = new Map<string, string>();
  /** base64 hash → key id and deadline, secrets replaced by a rotation and still in their grace. */
  readonly #previous = new Map<string, { readonly id: string; readonly until: number }>();
  readonly #currentOf = new Map<string, string>();
  readonly #previousOf = new Map<string, string>();

  /** The key's hash now; the one it had before (if any) is no longer current. */
  setCurrent(id: string, hash: Buffer): void {
    const old = this.#currentOf.get(id);
    if (old !== undefined) this.#current.delete(old);
    const key = hash.toString('base64');
    this.#current.set(key, id);
    this.#currentOf.set(id, key);
  }

  /** Accepts `hash` for the key until `until` (epoch ms); null: no previous secret. Replaces an older one. */
  setPrevious(id: string, hash: Buffer | null, until: number | null): void {
    const old = this.#previousOf.get(id);
    if (old !== undefined) {
      this.#previous.delete(old);
      this.#previousOf.delete(id);
    }
    if (hash === null || until === null) return;
    const key = hash.toString('base64');
    this.#previous.set(key, { id, until });
    this.#previousOf.set(id, key);
  }

  /** The current hash of a key (to move it to previous on rotation). */
  currentOf(id: string): Buffer | undefined {
    const key = this.#currentOf.get(id);
    return key === undefined ? undefined : Buffer.from(key, 'base64');
  }

  /** The key a hash (in base64) names at `nowMs`: a current secret, or a previous one before its deadline. */
  find(key: string, nowMs: number): string | undefined {
    const id = this.#current.get(key);
    if (id !== undefined) return id;
    const previous = this.#previous.get(key);
    if (previous === undefined) return undefined;
    if (nowMs < previous.until) return previous.id;
    // Past its grace: dropped, so memory holds only secrets that can still be used.
    this.setPrevious(previous.id, null, null);
    return undefined;
  }

  forget(id: string): void {
    const current = this.#currentOf.get(id);
    if (current !== undefined) this.#current.delete(current);
    this.#currentOf.delete(id);
    this.setPrevious(id, null, null);
  }
}
