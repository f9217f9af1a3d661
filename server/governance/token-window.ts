import type { MillisecondClock } from './rate-limiter.ts';

export const TOKEN_WINDOW_MS = 60_000;

export type TokenDecision =
  | { readonly allowed: true }
  /** retryAfterSeconds: when enough of the window has passed for the request to fit (60 when it never fits). */
  | { readonly allowed: false; readonly retryAfterSeconds: number };

/** One admitted request in a key's window: its worst case while in flight, its real tokens once settled. */
interface Entry {
  readonly at: number;
  tokens: number;
}

/** A key's requests of the last minute in admission order (Map keeps insertion order), and their sum. */
interface KeyWindow {
  readonly entries: Map<number, Entry>;
  sum: number;
  /** The newest admission time: entries never go back in time, so the oldest stays first. */
  newest: number;
}

/**
 * Tokens per minute per key, exact like the money: a sliding 60 s window of admitted requests,
 * each counted from its admission for 60 s, at its worst case (input + output) until it settles
 * and at its real tokens after; a release takes it out. A request is admitted when the window's
 * sum plus its worst case fits the key's tpm. Keyed by reservation id so settle and release find
 * the entry. Memory: only keys active in the last minute hold state (the keys are kept in order of
 * their newest admission and swept from the front). Not persisted: a restart forgets one window.
 */
export class TokenWindow {
  readonly #clock: MillisecondClock;
  readonly #keys = new Map<string, KeyWindow>();
  readonly #keyOf = new Map<number, string>();

  constructor(clock: MillisecondClock) {
    this.#clock = clock;
  }

  /** Whether `worstCaseTokens` more fits the key's `tpm` now (nothing is held: see hold()). */
  decide(keyId: string, tpm: number, worstCaseTokens: number): TokenDecision {
    if (worstCaseTokens > tpm) return { allowed: false, retryAfterSeconds: TOKEN_WINDOW_MS / 1000 };
    const now = this.#clock.now();
    this.#sweep(now);
    const window = this.#keys.get(keyId);
    if (window === undefined) return { allowed: true };
    this.#expire(window, now);
    if (window.sum + worstCaseTokens <= tpm) return { allowed: true };
    // The oldest entries leave first: find the one whose leaving makes room.
    let left = window.sum;
    for (const entry of window.entries.values()) {
      left -= entry.tokens;
      if (left + worstCaseTokens <= tpm) return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((entry.at + TOKEN_WINDOW_MS - now) / 1000)) };
    }
    return { allowed: false, retryAfterSeconds: TOKEN_WINDOW_MS / 1000 }; // unreachable: worstCaseTokens <= tpm
  }

  /** Counts `worstCaseTokens` for the request admitted as `reservationId`, from now. */
  hold(keyId: string, reservationId: number, worstCaseTokens: number): void {
    const now = this.#clock.now();
    let window = this.#keys.get(keyId);
    if (window === undefined) window = { entries: new Map(), sum: 0, newest: now };
    else this.#keys.delete(keyId); // re-inserted below: the map stays ordered by newest admission
    window.newest = Math.max(now, window.newest);
    window.entries.set(reservationId, { at: window.newest, tokens: worstCaseTokens });
    window.sum += worstCaseTokens;
    this.#keys.set(keyId, window);
    this.#keyOf.set(reservationId, keyId);
  }

  /** The request's real tokens replace its worst case (still counted from its admission). */
  settle(reservationId: number, tokens: number): void {
    const entry = this.#entry(reservationId);
    if (entry === undefined) return;
    entry.window.sum += tokens - entry.entry.tokens;
    entry.entry.tokens = tokens;
    this.#keyOf.delete(reservationId); // settled once: a second settle or a release changes nothing
  }

  /** The request used nothing: it leaves the window. Idempotent. */
  release(reservationId: number): void {
    const entry = this.#entry(reservationId);
    if (entry === undefined) return;
    entry.window.sum -= entry.entry.tokens;
    entry.window.entries.delete(reservationId);
    this.#keyOf.delete(reservationId);
  }

  /** Keys holding state (for tests and metrics). */
  get trackedKeys(): number {
    return this.#keys.size;
  }

  #entry(reservationId: number): { window: KeyWindow; entry: Entry } | undefined {
    const keyId = this.#keyOf.get(reservationId);
    const window = keyId === undefined ? undefined : this.#keys.get(keyId);
    const entry = window?.entries.get(reservationId);
    return window === undefined || entry === undefined ? undefined : { window, entry };
  }

  #expire(window: KeyWindow, now: number): void {
    for (const [id, entry] of window.entries) {
      if (entry.at > now - TOKEN_WINDOW_MS) return;
      window.entries.delete(id);
      window.sum -= entry.tokens;
      this.#keyOf.delete(id);
    }
  }

  /** Drops keys from the front (oldest newest-admission first) until one still has an entry in the window. */
  #sweep(now: number): void {
    for (const [keyId, window] of this.#keys) {
      this.#expire(window, now);
      if (window.entries.size > 0) return;
      this.#keys.delete(keyId);
    }
  }
}
