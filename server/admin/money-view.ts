import { microcentsToCentsDown, microcentsToCentsUp, microcentsToUsd } from '../shared/money.ts';

/**
 * Money as the admin API shows it: whole cents (spend rounded up, so a key that spent 0.007 cents
 * reads as having spent; what is left rounded down) beside the exact amount in US dollars.
 */
export const spentCents = microcentsToCentsUp;
export const usd = microcentsToUsd;

/**
 * What is left of a budget: budget − spent − reserved, never below 0. `spent` is what counts
 * against the budget (the current period's spend when there is a period). The same formula as
 * POST /auth/token's remaining_cents, so both planes show one number.
 */
export function remainingMicrocents(budget: bigint, spent: bigint, reserved: bigint): bigint {
  const left = budget - spent - reserved;
  return left > 0n ? left : 0n;
}

export const remainingCents = (left: bigint): number => microcentsToCentsDown(left);

export function isoTime(epochMs: number): string {
  return new Date(epochMs).toISOString();
}

export function isoOrNull(epochMs: number | null): string | null {
  return epochMs === null ? null : isoTime(epochMs);
}
