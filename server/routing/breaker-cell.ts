import type { BreakerSettings } from './breaker-settings.ts';
import type { Clock } from './clock.ts';
import { FailureWindow } from './failure-window.ts';
import type { Outcome } from './outcome.ts';

export type BreakerState = 'closed' | 'open' | 'half_open';

/** Whether a lane may take an attempt now: normally, as the one half-open probe, or not until `retryAt`. */
export type Admission = { readonly kind: 'normal' } | { readonly kind: 'probe' } | { readonly kind: 'unavailable'; readonly retryAt: number; readonly reason: string };

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

/**
 * Breaker state for one (pool, lane) pair. Closed, open and half-open, with exactly one probe
 * in half-open; trips on consecutive lane faults or a failure rate with a minimum volume; open
 * time grows with repeated trips (capped, jittered). Capacity (429) and config faults are
 * separate deadline-based cooldowns that only ever extend. Pure state: time comes from the clock.
 */
export class BreakerCell {
  private state: BreakerState = 'closed';
  private consecutive = 0;
  /** Trips since the lane was last healthy for a while; scales the open time. */
  private tripStreak = 0;
  private closedAt = 0;
  private openUntil = 0;
  private probeInFlight = false;
  private capacityUntil = 0;
  private configUntil = 0;
  private readonly window: FailureWindow;
  readonly counters: CellCounters = { successes: 0, laneFaults: 0, capacityFaults: 0, configFaults: 0, clientFaults: 0, trips: 0 };
  private readonly settings: BreakerSettings;
  private readonly clock: Clock;

  constructor(settings: BreakerSettings, clock: Clock) {
    this.settings = settings;
    this.clock = clock;
    this.window = new FailureWindow(settings.windowMs);
  }

  /** Asks for an attempt. A granted probe must be followed by `record` or `abandon`. */
  admit(): Admission {
    const now = this.clock.now();
    const blocked = this.blockedUntil(now);
    if (blocked !== undefined) return blocked;
    if (this.state === 'open') {
      this.state = 'half_open';
      this.probeInFlight = false;
    }
    if (this.state === 'half_open') {
      if (this.probeInFlight) return { kind: 'unavailable', retryAt: now + 1000, reason: 'half-open probe in flight' };
      this.probeInFlight = true;
      return { kind: 'probe' };
    }
    return { kind: 'normal' };
  }

  /** Whether `admit` would grant an attempt, without taking the probe (for planning and /stats). */
  wouldAdmit(): Admission {
    const now = this.clock.now();
    const blocked = this.blockedUntil(now);
    if (blocked !== undefined) return blocked;
    if (this.state === 'half_open' && this.probeInFlight) return { kind: 'unavailable', retryAt: now + 1000, reason: 'half-open probe in flight' };
    return this.state === 'closed' ? { kind: 'normal' } : { kind: 'probe' };
  }

  /** The attempt ended and says this about the lane. `retryAfterMs` is the upstream's hint, if any. */
  record(outcome: Outcome, retryAfterMs?: number): void {
    const now = this.clock.now();
    const wasProbe = this.probeInFlight;
    this.probeInFlight = false;
    switch (outcome) {
      case 'success':
        this.counters.successes++;
        this.consecutive = 0;
        this.window.record(now, false);
        if (this.state !== 'closed') this.close(now);
        return;
      case 'client_fault':
        this.counters.clientFaults++;
        return; // says nothing about the lane; a probe that ends so leaves it half-open
      case 'lane_capacity': {
        this.counters.capacityFaults++;
        const cooldown = Math.min(retryAfterMs ?? this.settings.rateLimitCooldownMs, this.settings.maxRateLimitCooldownMs);
        this.capacityUntil = Math.max(this.capacityUntil, now + cooldown);
        return;
      }
      case 'lane_config_fault':
        this.counters.configFaults++;
        this.configUntil = Math.max(this.configUntil, now + this.settings.configFaultCooldownMs);
        return;
      case 'lane_fault':
        this.counters.laneFaults++;
        if (retryAfterMs !== undefined) this.capacityUntil = Math.max(this.capacityUntil, now + Math.min(retryAfterMs, this.settings.maxRateLimitCooldownMs));
        this.consecutive++;
        this.window.record(now, true);
        if (wasProbe || this.state === 'half_open' || this.shouldTrip(now)) this.trip(now);
    }
  }

  /** The attempt ended without saying anything about the lane (client gone): free the probe. */
  abandon(): void {
    this.probeInFlight = false;
  }

  snapshot(): CellSnapshot {
    return {
      state: this.state === 'open' && this.clock.now() >= this.openUntil ? 'half_open' : this.state,
      consecutiveFailures: this.consecutive,
      openUntil: this.state === 'open' ? this.openUntil : 0,
      capacityCooldownUntil: this.capacityUntil,
      configCooldownUntil: this.configUntil,
      probeInFlight: this.probeInFlight,
      counters: { ...this.counters },
    };
  }

  private blockedUntil(now: number): Admission | undefined {
    const waits: [number, string][] = [];
    if (this.state === 'open' && now < this.openUntil) waits.push([this.openUntil, 'breaker open']);
    if (now < this.capacityUntil) waits.push([this.capacityUntil, 'rate limited by the upstream']);
    if (now < this.configUntil) waits.push([this.configUntil, 'upstream refused the lane configuration']);
    if (waits.length === 0) return undefined;
    const [retryAt, reason] = waits.reduce((a, b) => (b[0] > a[0] ? b : a));
    return { kind: 'unavailable', retryAt, reason };
  }

  private shouldTrip(now: number): boolean {
    if (this.consecutive >= this.settings.consecutiveFailures) return true;
    const { attempts, failures } = this.window.totals(now);
    return attempts >= this.settings.minRequests && failures / attempts >= this.settings.failureRate;
  }

  private trip(now: number): void {
    // A lane healthy for longer than the longest open time starts its streak afresh.
    if (this.state === 'closed' && now - this.closedAt > this.settings.maxOpenMs) this.tripStreak = 0;
    this.tripStreak++;
    this.counters.trips++;
    const base = Math.min(this.settings.openMs * this.tripStreak, this.settings.maxOpenMs);
    const spread = 1 + this.settings.jitter * (2 * this.clock.random() - 1);
    this.openUntil = now + base * spread;
    this.state = 'open';
    this.consecutive = 0;
    this.window.reset();
  }

  private close(now: number): void {
    this.state = 'closed';
    this.closedAt = now;
    this.consecutive = 0;
  }
}
