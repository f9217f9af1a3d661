/** How a breaker cell trips and recovers. Defaults follow reliability.md §1.2; every value is configurable. */
export interface BreakerSettings {
  /** Consecutive lane faults that open the breaker. */
  readonly consecutiveFailures: number;
  /** Failure share over the window that opens it, once the window holds `minRequests` attempts. */
  readonly failureRate: number;
  readonly windowMs: number;
  readonly minRequests: number;
  /** Open time for the first trip; each further trip adds this much again, up to `maxOpenMs`. */
  readonly openMs: number;
  readonly maxOpenMs: number;
  /** Open times are spread by up to this share either way so lanes do not all return at once. */
  readonly jitter: number;
  /** A 429 without Retry-After cools the lane this long; a Retry-After is clamped to `maxRateLimitCooldownMs`. */
  readonly rateLimitCooldownMs: number;
  readonly maxRateLimitCooldownMs: number;
  /** Upstream refused our credential, quota or model (lane config fault): a long cooldown. */
  readonly configFaultCooldownMs: number;
}

export const DEFAULT_BREAKER: BreakerSettings = {
  consecutiveFailures: 3,
  failureRate: 0.5,
  windowMs: 60_000,
  minRequests: 10,
  openMs: 15_000,
  maxOpenMs: 300_000,
  jitter: 0.1,
  rateLimitCooldownMs: 15_000,
  maxRateLimitCooldownMs: 300_000,
  configFaultCooldownMs: 900_000,
};

/** Config keys (snake_case, as in config.yaml) to settings. */
export interface BreakerConfig {
  consecutive_failures?: number;
  failure_rate?: number;
  window_ms?: number;
  min_requests?: number;
  open_ms?: number;
  max_open_ms?: number;
  jitter?: number;
  rate_limit_cooldown_ms?: number;
  max_rate_limit_cooldown_ms?: number;
  config_fault_cooldown_ms?: number;
}

export function breakerSettings(base: BreakerSettings, config: BreakerConfig | undefined): BreakerSettings {
  if (config === undefined) return base;
  return {
    consecutiveFailures: config.consecutive_failures ?? base.consecutiveFailures,
    failureRate: config.failure_rate ?? base.failureRate,
    windowMs: config.window_ms ?? base.windowMs,
    minRequests: config.min_requests ?? base.minRequests,
    openMs: config.open_ms ?? base.openMs,
    maxOpenMs: config.max_open_ms ?? base.maxOpenMs,
    jitter: config.jitter ?? base.jitter,
    rateLimitCooldownMs: config.rate_limit_cooldown_ms ?? base.rateLimitCooldownMs,
    maxRateLimitCooldownMs: config.max_rate_limit_cooldown_ms ?? base.maxRateLimitCooldownMs,
    configFaultCooldownMs: config.config_fault_cooldown_ms ?? base.configFaultCooldownMs,
  };
}
