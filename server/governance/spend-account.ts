import { type BudgetPeriod, periodStart } from './budget-period.ts';

/**
 * The spend of one key or one team, in memory (authoritative: this process owns the store): its
 * lifetime spend, what its requests in flight hold, and its spend in the current budget period.
 * The period's spend is never trusted from a stale figure: it is summed from the ledger (`sumSince`)
 * the first time it is asked for, whenever the period rolls over, and after `recount()` (a changed
 * budget or period); in between, settlements add to it. A settlement counts in the period it is
 * settled in: call `counted()` at the settlement's time before `add()`.
 */
export class SpendAccount {
  /** Over the account's whole life. */
  spent: bigint;
  /** Held by requests admitted and not yet settled or released; kept across a rollover. */
  reserved = 0n;
  readonly #sumSince: (startMs: number) => bigint;
  /** The period whose spend #periodSpent is, as `period@start`; null: not counted yet. */
  #counting: string | null = null;
  #periodSpent = 0n;

  constructor(sumSince: (startMs: number) => bigint, spent = 0n) {
    this.#sumSince = sumSince;
    this.spent = spent;
  }

  /** The spend a budget of `period` compares at `nowMs`: the current period's, or lifetime spend. */
  counted(period: BudgetPeriod | null, nowMs: number): bigint {
    if (period === null) return this.spent;
    const start = periodStart(period, nowMs);
    const counting = `${period}@${start}`;
    if (this.#counting !== counting) {
      this.#periodSpent = this.#sumSince(start);
      this.#counting = counting;
    }
    return this.#periodSpent;
  }

  /** A settlement's cost, after counted() at its time. */
  add(costMicrocents: bigint): void {
    this.spent += costMicrocents;
    if (this.#counting !== null) this.#periodSpent += costMicrocents;
  }

  /** The period's spend is summed from the ledger again at the next counted(). */
  recount(): void {
    this.#counting = null;
  }
}
