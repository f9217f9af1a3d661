/** A budget that resets: calendar periods in UTC (a week starts on Monday, as ISO 8601 has it). */
export type BudgetPeriod = 'daily' | 'weekly' | 'monthly';

export const BUDGET_PERIODS: readonly BudgetPeriod[] = ['daily', 'weekly', 'monthly'];

const DAY_MS = 86_400_000;

/** The start (epoch ms, UTC) of the period that `nowMs` falls in. */
export function periodStart(period: BudgetPeriod, nowMs: number): number {
  const now = new Date(nowMs);
  const midnight = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  switch (period) {
    case 'daily':
      return midnight;
    case 'weekly':
      // getUTCDay: Sunday 0 ... Saturday 6; Monday is the first day of the week.
      return midnight - ((now.getUTCDay() + 6) % 7) * DAY_MS;
    case 'monthly':
      return Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
  }
}

/** The start (epoch ms, UTC) of the period after the one `nowMs` falls in: when its spend resets. */
export function nextPeriodStart(period: BudgetPeriod, nowMs: number): number {
  const start = periodStart(period, nowMs);
  switch (period) {
    case 'daily':
      return start + DAY_MS;
    case 'weekly':
      return start + 7 * DAY_MS;
    case 'monthly': {
      const d = new Date(start);
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
    }
  }
}
