import type { BreakerSettings } from './breaker-settings.ts';
import type { Clock } from '../shared/clock.ts';
import { FailureWindow } from './failure-window.ts';
import type { Outcome } from './outcome.ts';
import { lockCell, unlockCell, type CellSlot } from './routing-memory.ts';

export type BreakerState = 'closed' | 'open' | 'half_open';

/** Whether a lane may take an attempt now: normally, as the one half-open probe, or not until `retryAt`. */
export type Admission =
  | { readonly kind: 'normal' }
  | { readonly kind: 'probe' }
  | { readonly kind: 'unavailable'; readonly retryAt: number; readonly reason: string };

export interface CellCounters {
  successes: number;
  laneFaults: number;
  capacityFaults: number;
  configFaults: number;
  clientFaults: number;
  trips: number;
}

export interface CellSnapshot {
  readonly state: BreakerState;
  readonly consecutiveFailures: number;
  /** Monotonic-clock deadlines (ms); 0 when not set. */
  readonly openUntil: number;
  readonly capacityCooldownUntil: number;
  readonly configCooldownUntil: number;
  readonly probeInFlight: boolean;
  readonly counters: Readonly<CellCounters>;
}

// Field offsets in the cell's Float64 slot. Zeroed memory is a fresh, closed cell.
const STATE = 0;
const CONSECUTIVE = 1;
/** Trips since the lane was last healthy for a while; scales the open time. */
const TRIP_STREAK = 2;
const CLOSED_AT = 3;
const OPEN_UNTIL = 4;
/** 0: no probe out; otherwise the holder's worker number, so a dead worker's probe can be freed. */
const PROBE_OWNER = 5;
const CAPACITY_UNTIL = 6;
const CONFIG_UNTIL = 7;
const COUNTERS = 8;
const COUNTER_NAMES = ['successes', 'laneFaults', 'capacityFaults', 'configFaults', 'clientFaults', 'trips'] as const;
const WINDOW = COUNTERS + COUNTER_NAMES.length;
const WINDOW_BUCKETS = 6;
/** Float64 fields per cell (the routing memory's `cellFloats`). */
export const CELL_FLOATS = WINDOW + FailureWindow.fields(WINDOW_BUCKETS);

const STATES: readonly BreakerState[] = ['closed', 'open', 'half_open'];
const CLOSED = 0;
const OPEN = 1;
const HALF_OPEN = 2;

/** A cell's own memory, for a cell no other thread shares (tests, tools). */
export function privateCellSlot(): CellSlot {
  return { fields: new Float64Array(CELL_FLOATS), locks: new Int32Array(1), lockIndex: 0 };
}

/**
 * Breaker state for one (pool, lane) pair. Closed, open and half-open, with exactly one probe
 * in half-open; trips on consecutive lane faults or a failure rate with a minimum volume; open
 * time grows with repeated trips (capped, jittered). Capacity (429) and config faults are
 * separate deadline-based cooldowns that only ever extend. Pure state: time comes from the clock.
 *
 * The fields live in a slot of the shared routing memory, so every worker thread sees one cell;
 * each public method runs under the cell's lock (one probe across all threads).
 */
export class BreakerCell {
  private readonly slot: CellSlot;
  private readonly f: Float64Array;
  private readonly window: FailureWindow;
  private readonly settings: BreakerSettings;
  private readonly clock: Clock;
  /** This thread's worker number (1-based), recorded as the probe's holder. */
  private readonly worker: number;

  constructor(settings: BreakerSettings, clock: Clock, slot: CellSlot = privateCellSlot(), worker = 1) {
    this.settings = settings;
    this.clock = clock;
    this.slot = slot;
    this.f = slot.fields;
    this.worker = worker;
    this.window = new FailureWindow(settings.windowMs, slot.fields.subarray(WINDOW), WINDOW_BUCKETS);
  }

  /** Asks for an attempt. A granted probe must be followed by `record` or `abandon`. */
  admit(): Admission {
    const now = this.clock.now();
    lockCell(this.slot);
    try {
      const blocked = this.blockedUntil(now);
      if (blocked !== undefined) return blocked;
      const f = this.f;
      if (f[STATE] === OPEN) {
        f[STATE] = HALF_OPEN;
        f[PROBE_OWNER] = 0;
      }
      if (f[STATE] === HALF_OPEN) {
        if (f[PROBE_OWNER] !== 0) return { kind: 'unavailable', retryAt: now + 1000, reason: 'half-open probe in flight' };
        f[PROBE_OWNER] = this.worker;
        return PROBE;
      }
      return NORMAL;
    } finally {
      unlockCell(this.slot);
    }
  }

  /** Whether `admit` would grant an attempt, without taking the probe (for planning and /stats). */
  wouldAdmit(): Admission {
    const now = this.clock.now();
    lockCell(this.slot);
    try {
      const blocked = this.blockedUntil(now);
      if (blocked !== undefined) return blocked;
      const state = this.f[STATE];
      if (state === HALF_OPEN && this.f[PROBE_OWNER] !== 0) return { kind: 'unavailable', retryAt: now + 1000, reason: 'half-open probe in flight' };
      return state === CLOSED ? NORMAL : PROBE;
    } finally {
      unlockCell(this.slot);
    }
  }

  /** The attempt ended and says this about the lane. `retryAfterMs` is the upstream's hint, if any. */
  record(outcome: Outcome, retryAfterMs?: number): void {
    const now = this.clock.now();
    lockCell(this.slot);
    try {
      this.recordLocked(now, outcome, retryAfterMs);
    } finally {
      unlockCell(this.slot);
    }
  }

  /** The attempt ended without saying anything about the lane (client gone): free the probe. */
  abandon(): void {
    lockCell(this.slot);
    this.f[PROBE_OWNER] = 0;
    unlockCell(this.slot);
  }

  /** A worker thread died: a probe it held will never be recorded, so it is freed. */
  releaseProbeOf(worker: number): void {
    lockCell(this.slot);
    if (this.f[PROBE_OWNER] === worker) this.f[PROBE_OWNER] = 0;
    unlockCell(this.slot);
  }

  get counters(): Readonly<CellCounters> {
    lockCell(this.slot);
    try {
      return this.readCounters();
    } finally {
      unlockCell(this.slot);
    }
  }

  snapshot(): CellSnapshot {
    const now = this.clock.now();
    lockCell(this.slot);
    try {
      const f = this.f;
      const state = STATES[f[STATE]!]!;
      return {
        state: state === 'open' && now >= f[OPEN_UNTIL]! ? 'half_open' : state,
        consecutiveFailures: f[CONSECUTIVE]!,
        openUntil: state === 'open' ? f[OPEN_UNTIL]! : 0,
        capacityCooldownUntil: f[CAPACITY_UNTIL]!,
        configCooldownUntil: f[CONFIG_UNTIL]!,
        probeInFlight: f[PROBE_OWNER] !== 0,
        counters: this.readCounters(),
      };
    } finally {
      unlockCell(this.slot);
    }
  }

  private readCounters(): CellCounters {
    const f = this.f;
    return {
      successes: f[COUNTERS]!,
      laneFaults: f[COUNTERS + 1]!,
      capacityFaults: f[COUNTERS + 2]!,
      configFaults: f[COUNTERS + 3]!,
      clientFaults: f[COUNTERS + 4]!,
      trips: f[COUNTERS + 5]!,
    };
  }

  private count(index: number): void {
    this.f[COUNTERS + index] = this.f[COUNTERS + index]! + 1;
  }

  private recordLocked(now: number, outcome: Outcome, retryAfterMs: number | undefined): void {
    const f = this.f;
    const wasProbe = f[PROBE_OWNER] !== 0;
    f[PROBE_OWNER] = 0;
    switch (outcome) {
      case 'success':
        this.count(0);
        f[CONSECUTIVE] = 0;
        this.window.record(now, false);
        if (f[STATE] !== CLOSED) this.close(now);
        return;
      case 'client_fault':
        this.count(4);
        return; // says nothing about the lane; a probe that ends so leaves it half-open
      case 'lane_capacity': {
        this.count(2);
        const cooldown = Math.min(retryAfterMs ?? this.settings.rateLimitCooldownMs, this.settings.maxRateLimitCooldownMs);
        f[CAPACITY_UNTIL] = Math.max(f[CAPACITY_UNTIL]!, now + cooldown);
        return;
      }
      case 'lane_config_fault':
        this.count(3);
        f[CONFIG_UNTIL] = Math.max(f[CONFIG_UNTIL]!, now + this.settings.configFaultCooldownMs);
        return;
      case 'lane_fault':
        this.count(1);
        if (retryAfterMs !== undefined) f[CAPACITY_UNTIL] = Math.max(f[CAPACITY_UNTIL]!, now + Math.min(retryAfterMs, this.settings.maxRateLimitCooldownMs));
        f[CONSECUTIVE] = f[CONSECUTIVE]! + 1;
        this.window.record(now, true);
        if (wasProbe || f[STATE] === HALF_OPEN || this.shouldTrip(now)) this.trip(now);
    }
  }

  private blockedUntil(now: number): Admission | undefined {
    const f = this.f;
    let retryAt = 0;
    let reason = '';
    if (f[STATE] === OPEN && now < f[OPEN_UNTIL]!) [retryAt, reason] = [f[OPEN_UNTIL]!, 'breaker open'];
    if (now < f[CAPACITY_UNTIL]! && f[CAPACITY_UNTIL]! > retryAt) [retryAt, reason] = [f[CAPACITY_UNTIL]!, 'rate limited by the upstream'];
    if (now < f[CONFIG_UNTIL]! && f[CONFIG_UNTIL]! > retryAt) [retryAt, reason] = [f[CONFIG_UNTIL]!, 'upstream refused the lane configuration'];
    return reason === '' ? undefined : { kind: 'unavailable', retryAt, reason };
  }

  private shouldTrip(now: number): boolean {
    if (this.f[CONSECUTIVE]! >= this.settings.consecutiveFailures) return true;
    const { attempts, failures } = this.window.totals(now);
    return attempts >= this.settings.minRequests && failures / attempts >= this.settings.failureRate;
  }

  private trip(now: number): void {
    const f = this.f;
    // A lane healthy for longer than the longest open time starts its streak afresh.
    if (f[STATE] === CLOSED && now - f[CLOSED_AT]! > this.settings.maxOpenMs) f[TRIP_STREAK] = 0;
    f[TRIP_STREAK] = f[TRIP_STREAK]! + 1;
    this.count(5);
    const base = Math.min(this.settings.openMs * f[TRIP_STREAK]!, this.settings.maxOpenMs);
    const spread = 1 + this.settings.jitter * (2 * this.clock.random() - 1);
    f[OPEN_UNTIL] = now + base * spread;
    f[STATE] = OPEN;
    f[CONSECUTIVE] = 0;
    this.window.reset();
  }

  private close(now: number): void {
    this.f[STATE] = CLOSED;
    this.f[CLOSED_AT] = now;
    this.f[CONSECUTIVE] = 0;
  }
}

const NORMAL: Admission = Object.freeze({ kind: 'normal' });
const PROBE: Admission = Object.freeze({ kind: 'probe' });
