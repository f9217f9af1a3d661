import type { StatementSync } from 'node:sqlite';
import { newKeyId } from './key-id.ts';
import type { KeyRecord, KeyUpdate, NewKey } from './key-record.ts';
import { INSERT_KEY, type KeyRow, limitColumns, recordFrom, SELECT_KEYS, UPDATE_LIMITS } from './key-rows.ts';
import { displayPrefix, hashKeySecret, newKeySecret } from './key-secret.ts';
import { applyKeyUpdate } from './key-update.ts';
import { SecretHashes } from './secret-hashes.ts';
import { SecretIndex } from './secret-index.ts';
import type { Store } from './store.ts';

/**
 * Every key, held in memory and indexed by secret hash and by id: authentication is one HMAC (none
 * for a secret seen before, secret-hashes.ts) and one map lookup, no query. Every change (create,
 * update, rotate, revoke) is written to the store first, then to memory, so it is in force for the
 * very next request and never ahead of the file.
 */
export class KeyDirectory {
  readonly #serverSecret: string;
  readonly #byId = new Map<string, KeyRecord>();
  readonly #secrets = new SecretIndex();
  /** Presented secrets' hashes, remembered: authentication is then one map lookup, no HMAC. */
  readonly #hashes: SecretHashes;
  readonly #insert: StatementSync;
  readonly #update: StatementSync;
  readonly #rotate: StatementSync;
  readonly #revoke: StatementSync;

  constructor(store: Store, serverSecret: string) {
    this.#serverSecret = serverSecret;
    this.#hashes = new SecretHashes(serverSecret);
    const select = store.db.prepare(SELECT_KEYS);
    select.setReadBigInts(true);
    for (const row of select.all() as unknown as KeyRow[]) {
      const record = recordFrom(row);
      this.#byId.set(row.id, record);
      this.#secrets.setCurrent(row.id, Buffer.from(row.secret_hash));
      if (row.previous_secret_hash !== null) this.#secrets.setPrevious(row.id, Buffer.from(row.previous_secret_hash), record.previousSecretUntil);
    }
    this.#insert = store.db.prepare(INSERT_KEY);
    this.#update = store.db.prepare(UPDATE_LIMITS);
    this.#rotate = store.db.prepare(
      'UPDATE keys SET prefix = ?, secret_hash = ?, rotated_at = ?, previous_secret_hash = ?, previous_secret_until = ? WHERE id = ?',
    );
    this.#revoke = store.db.prepare('UPDATE keys SET revoked_at = ? WHERE id = ?');
  }

  /**
   * A new key with a random secret, or with `derived` when the caller derived one: only self-serve
   * keys are (their secret is re-derived at every exchange, which is also why they are never rotated).
   */
  create(spec: NewKey, nowMs: number, derived?: string): { record: KeyRecord; secret: string } {
    const secret = derived ?? newKeySecret();
    const hash = hashKeySecret(this.#serverSecret, secret);
    const record: KeyRecord = {
      id: newKeyId(nowMs),
      name: spec.name ?? null,
      owner: spec.owner ?? null,
      prefix: displayPrefix(secret),
      budgetMicrocents: spec.budgetMicrocents ?? null,
      budgetPeriod: spec.budgetPeriod ?? null,
      rpm: spec.rpm ?? null,
      tpm: spec.tpm ?? null,
      models: spec.models === undefined ? null : [...spec.models],
      expiresAt: spec.expiresAt ?? null,
      team: spec.team ?? null,
      metadata: { ...(spec.metadata ?? {}) },
      selfServe: derived !== undefined,
      createdAt: nowMs,
      revokedAt: null,
      rotatedAt: null,
      previousSecretUntil: null,
    };
    this.#insert.run(...limitColumns(record), record.id, record.prefix, hash, record.createdAt);
    this.#byId.set(record.id, record);
    this.#secrets.setCurrent(record.id, hash);
    return { record, secret };
  }

  /**
   * The key a presented secret belongs to at `nowMs` (revoked and expired ones included: the caller
   * says why it is refused). A secret replaced by a rotation counts until its grace ends.
   */
  findBySecret(secret: string, nowMs: number): KeyRecord | undefined {
    const lookupKey = this.#hashes.lookupKey(secret);
    const id = this.#secrets.find(lookupKey, nowMs);
    if (id === undefined) return undefined;
    this.#hashes.remember(secret, lookupKey);
    return this.#byId.get(id);
  }

  /** Takes a created key out of the index again: its transaction did not commit. */
  forget(id: string): void {
    this.#byId.delete(id);
    this.#secrets.forget(id);
  }

  get(id: string): KeyRecord | undefined {
    return this.#byId.get(id);
  }

  /** Oldest first. */
  list(): KeyRecord[] {
    return [...this.#byId.values()];
  }

  /** Changes the key's name, owner and limits (see KeyUpdate); undefined: no such key. */
  update(id: string, update: KeyUpdate): KeyRecord | undefined {
    const record = this.#byId.get(id);
    if (record === undefined) return undefined;
    const updated = applyKeyUpdate(record, update);
    this.#update.run(...limitColumns(updated), id);
    this.#byId.set(id, updated);
    return updated;
  }

  /**
   * A new random secret for the key. The current one stays accepted until nowMs + grace (grace 0:
   * not at all); a previous secret still in its grace is dropped, as only one is kept.
   */
  rotate(id: string, graceSeconds: number, nowMs: number): { record: KeyRecord; secret: string } | undefined {
    const record = this.#byId.get(id);
    if (record === undefined) return undefined;
    const secret = newKeySecret();
    const hash = hashKeySecret(this.#serverSecret, secret);
    const until = graceSeconds > 0 ? nowMs + graceSeconds * 1000 : null;
    const previous = until === null ? null : (this.#secrets.currentOf(id) ?? null);
    this.#rotate.run(displayPrefix(secret), hash, nowMs, previous, until, id);
    const rotated: KeyRecord = { ...record, prefix: displayPrefix(secret), rotatedAt: nowMs, previousSecretUntil: previous === null ? null : until };
    this.#byId.set(id, rotated);
    this.#secrets.setPrevious(id, previous, until);
    this.#secrets.setCurrent(id, hash);
    return { record: rotated, secret };
  }

  /** Marks a key self-serve in memory: an identity row now names it (a key taken back after a restore). */
  markSelfServe(id: string): void {
    const record = this.#byId.get(id);
    if (record !== undefined && !record.selfServe) this.#byId.set(id, { ...record, selfServe: true });
  }

  /** Revokes once; revoking again returns the record as it is (the first revocation time stays). */
  revoke(id: string, nowMs: number): KeyRecord | undefined {
    const record = this.#byId.get(id);
    if (record === undefined || record.revokedAt !== null) return record;
    this.#revoke.run(nowMs, id);
    const revoked = { ...record, revokedAt: nowMs };
    this.#byId.set(id, revoked);
    return revoked;
  }

  get count(): number {
    return this.#byId.size;
  }
}
