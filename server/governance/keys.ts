import type { StatementSync } from 'node:sqlite';
import { newKeyId } from './key-id.ts';
import type { KeyRecord, NewKey } from './key-record.ts';
import { displayPrefix, hashKeySecret, newKeySecret } from './key-secret.ts';
import type { Store } from './store.ts';

interface KeyRow {
  id: string;
  name: string | null;
  owner: string | null;
  prefix: string;
  secret_hash: Uint8Array;
  budget_microcents: bigint | null;
  rpm: bigint | null;
  created_at: bigint;
  revoked_at: bigint | null;
}

/**
 * Every key, held in memory and indexed by secret hash and by id: authentication is one HMAC and
 * one map lookup, no query. Created and revoked keys are written to the store first, then to the
 * index, so a revocation is in force for the very next request.
 */
export class KeyDirectory {
  readonly #serverSecret: string;
  readonly #byId = new Map<string, KeyRecord>();
  /** base64 of the secret hash → key id. */
  readonly #idByHash = new Map<string, string>();
  readonly #insert: StatementSync;
  readonly #revoke: StatementSync;

  constructor(store: Store, serverSecret: string) {
    this.#serverSecret = serverSecret;
    const select = store.db.prepare(
      'SELECT id, name, owner, prefix, secret_hash, budget_microcents, rpm, created_at, revoked_at FROM keys ORDER BY created_at, rowid',
    );
    select.setReadBigInts(true);
    for (const row of select.all() as unknown as KeyRow[]) {
      this.#byId.set(row.id, recordFrom(row));
      this.#idByHash.set(Buffer.from(row.secret_hash).toString('base64'), row.id);
    }
    this.#insert = store.db.prepare(
      'INSERT INTO keys (id, name, owner, prefix, secret_hash, budget_microcents, rpm, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    );
    this.#revoke = store.db.prepare('UPDATE keys SET revoked_at = ? WHERE id = ?');
  }

  /** A new key with a random secret, or with `secret` when the caller derived one (self-serve keys). */
  create(spec: NewKey, nowMs: number, secret = newKeySecret()): { record: KeyRecord; secret: string } {
    const hash = hashKeySecret(this.#serverSecret, secret);
    const record: KeyRecord = {
      id: newKeyId(nowMs),
      name: spec.name ?? null,
      owner: spec.owner ?? null,
      prefix: displayPrefix(secret),
      budgetMicrocents: spec.budgetMicrocents ?? null,
      rpm: spec.rpm ?? null,
      createdAt: nowMs,
      revokedAt: null,
    };
    this.#insert.run(record.id, record.name, record.owner, record.prefix, hash, record.budgetMicrocents, record.rpm, record.createdAt);
    this.#byId.set(record.id, record);
    this.#idByHash.set(hash.toString('base64'), record.id);
    return { record, secret };
  }

  /** The key a presented secret belongs to (revoked ones included: the caller says why it is refused). */
  findBySecret(secret: string): KeyRecord | undefined {
    const id = this.#idByHash.get(hashKeySecret(this.#serverSecret, secret).toString('base64'));
    return id === undefined ? undefined : this.#byId.get(id);
  }

  /** Takes a created key out of the index again: its transaction did not commit. */
  forget(id: string): void {
    const record = this.#byId.get(id);
    if (record === undefined) return;
    this.#byId.delete(id);
    for (const [hash, keyId] of this.#idByHash) {
      if (keyId === id) this.#idByHash.delete(hash);
    }
  }

  get(id: string): KeyRecord | undefined {
    return this.#byId.get(id);
  }

  /** Oldest first. */
  list(): KeyRecord[] {
    return [...this.#byId.values()];
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

function recordFrom(row: KeyRow): KeyRecord {
  return {
    id: row.id,
    name: row.name,
    owner: row.owner,
    prefix: row.prefix,
    budgetMicrocents: row.budget_microcents,
    rpm: row.rpm === null ? null : Number(row.rpm),
    createdAt: Number(row.created_at),
    revokedAt: row.revoked_at === null ? null : Number(row.revoked_at),
  };
}
