/**
 * Money is integer only. The API speaks cents; inside, amounts are microcents (1 cent =
 * 1,000,000 µ¢), fine enough that one token at any listed price is a whole or near-whole number
 * of them. They are bigints: a budget of up to 10^12 cents is 10^18 µ¢, past the 2^53 a JS
 * number holds exactly (SQLite's INTEGER holds up to 2^63).
 */
export const MICROCENTS_PER_CENT = 1_000_000n;

export function centsToMicrocents(cents: number): bigint {
  if (!Number.isSafeInteger(cents) || cents < 0) throw new RangeError(`an amount in cents must be a whole number of at least 0 (got ${cents})`);
  return BigInt(cents) * MICROCENTS_PER_CENT;
}

/** Whole cents, rounded up: what was spent is never shown as less than it was. */
export function microcentsToCentsUp(microcents: bigint): number {
  const whole = microcents / MICROCENTS_PER_CENT;
  return Number(microcents % MICROCENTS_PER_CENT > 0n ? whole + 1n : whole);
}

/** Whole cents, rounded down: what is left is never shown as more than it is. */
export function microcentsToCentsDown(microcents: bigint): number {
  const whole = microcents / MICROCENTS_PER_CENT;
  return Number(microcents % MICROCENTS_PER_CENT < 0n ? whole - 1n : whole);
}

/** Microcents as exact US dollars, eight decimals (1 µ¢ = 1e-8 USD): 1_700n -> "0.00001700". */
export function microcentsToUsd(microcents: bigint): string {
  const sign = microcents < 0n ? '-' : '';
  const abs = microcents < 0n ? -microcents : microcents;
  const perDollar = 100n * MICROCENTS_PER_CENT;
  return `${sign}${abs / perDollar}.${String(abs % perDollar).padStart(8, '0')}`;
}

/** Microcents as a floating-point dollar amount: close enough for metrics, logs and trace attributes, never for accounting. */
export function microcentsToUsdNumber(microcents: bigint): number {
  return Number(microcents) / 1e8;
}
