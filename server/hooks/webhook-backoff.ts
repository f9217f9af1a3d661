import type { BackoffSettings } from './hook-settings.ts';

/**
 * The wait before retry number `retry` (0 for the first): exponential with full jitter, a random
 * time up to min(max, initial x 2^retry), so receivers coming back are not hit by every gateway at
 * once. A Retry-After from the receiver is a floor (still capped by max).
 */
export function backoffMs(settings: BackoffSettings, retry: number, random: () => number, retryAfterMs?: number): number {
  const ceiling = Math.min(settings.maxMs, settings.initialMs * 2 ** Math.min(retry, 30));
  const jittered = random() * ceiling;
  return Math.round(Math.min(settings.maxMs, Math.max(jittered, retryAfterMs ?? 0)));
}
