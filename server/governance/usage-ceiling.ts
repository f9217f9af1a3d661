import type { Usage } from '../ir/response.ts';

/**
 * The most tokens one count of one request's usage may claim: far beyond any model's context or
 * output (a few million), far below what could overflow the ledger's 64-bit microcent columns
 * (five counts at this ceiling, at 10,000 USD per million tokens, are about 5 × 10^15 µ¢). An
 * upstream reporting more is broken or hostile; its count is clamped here, and logged.
 */
export const MAX_TOKENS_PER_COUNT = 100_000_000;

const COUNTS = ['inputTokens', 'outputTokens', 'cacheReadTokens', 'cacheWriteTokens', 'reasoningTokens'] as const;

/** Nothing clamped: one shared empty list, so the usual case allocates none per settlement. */
const NONE_CLAMPED: readonly ClampedCount[] = Object.freeze([]);

/** A usage count the gateway would not bill as reported, and what it billed instead. */
export interface ClampedCount {
  readonly field: (typeof COUNTS)[number];
  readonly reported: unknown;
  readonly billed: number;
}

/**
 * Usage fit to be billed: every count a whole number from 0 to MAX_TOKENS_PER_COUNT (a fraction
 * rounds up, a negative, missing or non-number count is 0, an infinite or absurd one is the
 * ceiling). The same object when nothing needed clamping (the usual case: no copy).
 */
export function clampUsage(usage: Usage): { readonly usage: Usage; readonly clamped: readonly ClampedCount[] } {
  let clamped: ClampedCount[] | undefined;
  for (const field of COUNTS) {
    const reported: unknown = usage[field];
    const billed = billable(reported);
    if (billed !== reported) (clamped ??= []).push({ field, reported, billed });
  }
  if (clamped === undefined) return { usage, clamped: NONE_CLAMPED };
  const fixed: { -readonly [K in keyof Usage]: Usage[K] } = { ...usage };
  for (const { field, billed } of clamped) fixed[field] = billed;
  return { usage: fixed, clamped };
}

function billable(count: unknown): number {
  if (typeof count !== 'number' || Number.isNaN(count) || count <= 0) return 0;
  if (count >= MAX_TOKENS_PER_COUNT) return MAX_TOKENS_PER_COUNT;
  return Math.ceil(count);
}
