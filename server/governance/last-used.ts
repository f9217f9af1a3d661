import type { StatementSync } from 'node:sqlite';
import type { Store } from './store.ts';

/**
 * When each key was last used. Kept in memory and written in one batch every few seconds and at
 * close: a write (and fsync) per request would cost more than the figure is worth, and a crash
 * loses at most the last few seconds of it, never spend.
 */
export class LastUsed {
  readonly #store: Store;
  readonly #times = new Map<string, number>();
  readonly #dirty = new Set<string>();
  readonly #update: StatementSync;

  constructor(store: Store) {
    this.#store = store;
    const select = store.db.prepare('SELECT id, last_used_at FROM keys WHERE last_used_at IS NOT NULL');
    select.setReadBigInts(true);
    for (const row of select.all() as unknown as { id: string; last_used_at: bigint }[]) this.#times.set(row.id, Number(row.last_used_at));
    this.#update = store.db.prepare('UPDATE keys SET last_used_at = ? WHERE id = ?');
  }

  mark(keyId: string, nowMs: number): void {
    if ((this.#times.get(keyId) ?? -Infinity) >= nowMs) return;
    this.#times.set(keyId, nowMs);
    this.#dirty.add(keyId);
  }

  get(keyId: string): number | null {
    return this.#times.get(keyId) ?? null;
  }

  /** Writes every time marked since the last flush, in one transaction. */
  flush(): void {
    if (this.#dirty.size === 0) return;
    const ids = [...this.#dirty];
    this.#store.transaction(() => {
      for (const id of ids) this.#update.run(this.#times.get(id) ?? null, id);
    });
    this.#dirty.clear();
  }
}
