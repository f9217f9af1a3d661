/** Why the gateway should not be sent traffic now, most telling first. */
const REASONS = {
  starting: 'the gateway is starting',
  draining: 'the gateway is stopping (SIGTERM): it finishes what it has and takes nothing new',
  store_unreachable: 'the governance store (db_path or database_url) cannot be read',
  workers_down: 'a data-plane worker is down (it is being restarted)',
} as const;

export type NotReadyReason = keyof typeof REASONS;
const ORDER = Object.keys(REASONS) as NotReadyReason[];

/**
 * Readiness (GET /readyz), one word in shared memory: the main thread sets and clears the reasons
 * (it knows the workers, the store and the drain), every worker reads the same word when probed,
 * so no probe waits on a message. Liveness (/healthz) does not look at it.
 */
export class Readiness {
  readonly buffer: SharedArrayBuffer;
  private readonly word: Int32Array;

  /** A fresh one starts "starting"; a worker wraps the main thread's buffer. */
  constructor(buffer?: SharedArrayBuffer) {
    this.buffer = buffer ?? new SharedArrayBuffer(4);
    this.word = new Int32Array(this.buffer);
    if (buffer === undefined) this.set('starting', true);
  }

  set(reason: NotReadyReason, on: boolean): void {
    const bit = 1 << ORDER.indexOf(reason);
    if (on) Atomics.or(this.word, 0, bit);
    else Atomics.and(this.word, 0, ~bit);
  }

  /** Undefined when ready; else the most telling reason and its sentence. */
  notReady(): { readonly reason: NotReadyReason; readonly message: string } | undefined {
    const word = Atomics.load(this.word, 0);
    if (word === 0) return undefined;
    const reason = ORDER.find((_, i) => (word & (1 << i)) !== 0) ?? 'starting';
    return { reason, message: REASONS[reason] };
  }
}
