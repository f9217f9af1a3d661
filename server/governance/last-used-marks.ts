/**
 * When each key was last used, as this process saw it, and which of those times are not written
 * yet: the in-memory half both stores share (last-used.ts for SQLite, postgres-governance.ts for
 * PostgreSQL), each writing the marks in one batch every few seconds and at close.
 */
export class LastUsedMarks {
  readonly #times = new Map<string, number>();
  readonly #dirty = new Set<string>();

  /** A time already stored (read at start): known, nothing to write. */
  load(keyId: string, ms: number): void {
    this.#times.set(keyId, ms);
  }

  mark(keyId: string, nowMs: number): void {
    if ((this.#times.get(keyId) ?? -Infinity) >= nowMs) return;
    this.#times.set(keyId, nowMs);
    this.#dirty.add(keyId);
  }

  get(keyId: string): number | null {
    return this.#times.get(keyId) ?? null;
  }

  /** The keys marked since the last take, with their times; give them back() if the write fails. */
  take(): { ids: string[]; times: number[] } | undefined {
    if (this.#dirty.size === 0) return undefined;
    const ids = [...this.#dirty];
    this.#dirty.clear();
    return { ids, times: ids.map((id) => this.#times.get(id)!) };
  }

  back(ids: readonly string[]): void {
    for (const id of ids) this.#dirty.add(id);
  }
}
