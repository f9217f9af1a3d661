import { Identities, type IdentityRef } from './identities.ts';
import type { KeyRecord } from './key-record.ts';
import type { KeyDirectory } from './keys.ts';
import type { Store } from './store.ts';

export interface IdentityKeyRequest extends IdentityRef {
  /** The team the person belongs to now; a new key is issued for it. */
  readonly team: string;
  /** For a new key: its name and owner in the admin API, and the team's child_default. */
  readonly name: string;
  readonly owner: string;
  readonly budgetMicrocents: bigint | null;
  readonly rpm: number | null;
}

export interface IssuedIdentityKey {
  readonly record: KeyRecord;
  readonly secret: string;
  readonly generation: number;
  /** The team the key was issued for (a live key keeps its team when the person moves). */
  readonly team: string;
  /** False: the person's live key, the same as last time. */
  readonly created: boolean;
}

/** The key secret of one generation of one identity; the same inputs always give the same secret. */
export type DeriveSecret = (generation: number) => string;

/**
 * A self-serve key its person can no longer use: revoked, or past the expiry an operator set on it.
 * Either way the next exchange issues the next generation's key, as the sign-in is what vouches for
 * the person (cutting a person off is the identity provider's or the team mapping's job); handing
 * back a key the data plane refuses (401 key_expired) would leave them with no way to a working one.
 */
export function retiredKey(revokedAt: number | null, expiresAt: number | null, nowMs: number): boolean {
  return revokedAt !== null || (expiresAt !== null && expiresAt <= nowMs);
}

/**
 * The person's live key, or a new one. A live key is returned as it is (its spend and budget
 * untouched); with none, or a retired one (revoked or expired), the next generation's key is created with the team's
 * child budget and the team's name on it (so it also spends the team's budget), and the key row and identity row are committed in one transaction. All of it runs
 * synchronously in the thread that owns the store, so two exchanges at once for one person cannot
 * both create a key: the second finds the first one's.
 */
export class IdentityKeys {
  readonly #store: Store;
  readonly #keys: KeyDirectory;
  readonly #identities: Identities;

  constructor(store: Store, keys: KeyDirectory) {
    this.#store = store;
    this.#keys = keys;
    this.#identities = new Identities(store);
  }

  issue(request: IdentityKeyRequest, derive: DeriveSecret, nowMs: number): IssuedIdentityKey {
    const known = this.#identities.get(request);
    let generation = 0;
    if (known !== undefined) {
      const record = this.#keys.get(known.keyId);
      if (record !== undefined && !retiredKey(record.revokedAt, record.expiresAt, nowMs)) {
        const secret = derive(known.generation);
        if (this.#keys.findBySecret(secret, nowMs)?.id !== record.id) {
          // Only a changed derivation (code, or a secret swapped behind the store's check) gets here.
          throw new Error(`the derived secret of ${record.id} does not match its stored hash: self-serve keys cannot be re-derived`);
        }
        return { record, secret, generation: known.generation, team: known.team, created: false };
      }
      generation = known.generation + 1;
    }
    // A key with this generation's secret should not exist; if one does (an identity row lost from
    // a restored backup), a live one is taken back and a retired one is skipped.
    let secret = derive(generation);
    for (let existing = this.#keys.findBySecret(secret, nowMs); existing !== undefined; existing = this.#keys.findBySecret(secret, nowMs)) {
      if (!retiredKey(existing.revokedAt, existing.expiresAt, nowMs)) {
        this.#store.transaction(() => this.#identities.save({ ...request, generation, keyId: existing!.id }, nowMs));
        this.#keys.markSelfServe(existing.id);
        return { record: existing, secret, generation, team: request.team, created: false };
      }
      secret = derive(++generation);
    }
    let created: { record: KeyRecord; secret: string } | undefined;
    try {
      this.#store.transaction(() => {
        created = this.#keys.create(
          {
            name: request.name,
            owner: request.owner,
            budgetMicrocents: request.budgetMicrocents ?? undefined,
            rpm: request.rpm ?? undefined,
            // The key spends its team's budget (config.yaml teams.<name>) beside its own.
            team: request.team,
          },
          nowMs,
          secret,
        );
        this.#identities.save({ issuer: request.issuer, subject: request.subject, generation, keyId: created.record.id, team: request.team }, nowMs);
      });
    } catch (error) {
      if (created !== undefined) this.#keys.forget(created.record.id);
      throw error;
    }
    return { record: created!.record, secret, generation, team: request.team, created: true };
  }
}
