import type { StatementSync } from 'node:sqlite';
import type { Store } from './store.ts';

/** OIDC's stable identity of a person: `sub` is unique and never reassigned within one issuer. */
export interface IdentityRef {
  readonly issuer: string;
  readonly subject: string;
}

/** A person's self-serve key: which generation it is and which team it was issued for. */
export interface Identity extends IdentityRef {
  readonly generation: number;
  readonly keyId: string;
  readonly team: string;
}

interface IdentityRow {
  generation: bigint;
  key_id: string;
  team: string;
}

/** The identities table (migration 2). Reads go to SQLite: an exchange is rare next to a request. */
export class Identities {
  readonly #select: StatementSync;
  readonly #upsert: StatementSync;

  constructor(store: Store) {
    this.#select = store.db.prepare('SELECT generation, key_id, team FROM identities WHERE issuer = ? AND subject = ?');
    this.#select.setReadBigInts(true);
    this.#upsert = store.db.prepare(`
      INSERT INTO identities (issuer, subject, generation, key_id, team, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (issuer, subject) DO UPDATE SET generation = excluded.generation, key_id = excluded.key_id, team = excluded.team, updated_at = excluded.updated_at`);
  }

  get(ref: IdentityRef): Identity | undefined {
    const row = this.#select.get(ref.issuer, ref.subject) as unknown as IdentityRow | undefined;
    if (row === undefined) return undefined;
    return { issuer: ref.issuer, subject: ref.subject, generation: Number(row.generation), keyId: row.key_id, team: row.team };
  }

  /** Call inside the transaction that creates the key it names. */
  save(identity: Identity, nowMs: number): void {
    this.#upsert.run(identity.issuer, identity.subject, identity.generation, identity.keyId, identity.team, nowMs, nowMs);
  }
}
