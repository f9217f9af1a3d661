import type { StatementSync } from 'node:sqlite';
import { LastUsedMarks } from './last-used-marks.ts';
import type { Store } from './store.ts';

/**
 * When each key was last used. Kept in memory and written in one batch every few seconds and at
 * close: a write (and fsync) per request would cost more than the figure is worth, and a crash
 * loses at most the last few seconds of it, never spend.
 */
export class LastUsed {
  readonly #store: Store;
  readonly #marks = new LastUsedMarks();
  readonly #update: StatementSync;

  constructor(store: Store) {
    this.#store = store;
    const select = store.db.prepare('SELECT id, last_used_at FROM keys WHERE last_used_at IS NOT NULL');
    select.setReadBigInts(true);
    for (const row of select.all() as unknown as { id: string; last_used_at: bigint }[]) this.#marks.load(row.id, Number(row.last_used_at));
    this.#update = store.db.prepare('UPDATE keys SET last_used_at = ? WHERE id = ?');
  }

  mark(keyId: string, nowMs: number): void {
    this.#marks.mark(keyId, nowMs);
  }

  get(keyId: string): number | null {
    return this.#marks.get(keyId);
  }

  /** Writes every time marked since the last flush, in one transaction. */
  flush(): void {
    const marked = this.#marks.take();
    if (marked === undefined) return;
    try {
      this.#store.transaction(() => {
        marked.ids.forEach((id, i) => this.#update.run(marked.times[i]!, id));
      });
    } catch (error) {
      this.#marks.back(marked.ids);
      throw error;
    }
  }
}
