import { microcentsToCentsDown, microcentsToCentsUp, microcentsToUsd } from '../shared/money.ts';

/**
 * Money as the admin API shows it: whole cents (spend rounded up, so a key that spent 0.007 cents
 * reads as having spent; what is left rounded down) beside the exact amount in US dollars.
 */
export const spentCents = microcentsToCentsUp;
export const usd = microcentsToUsd;

export { remainingMicrocents } from '../governance/budget-remaining.ts';

/** A budget, and what is left of one, in whole cents rounded down. */
export const budgetCents = microcentsToCentsDown;
export const remainingCents = microcentsToCentsDown;

export function isoTime(epochMs: number): string {
  return new Date(epochMs).toISOString();
}

export function isoOrNull(epochMs: number | null): string | null {
  return epochMs === null ? null : isoTime(epochMs);
}
