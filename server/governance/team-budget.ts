import type { BudgetPeriod } from './budget-period.ts';

/**
 * A team's budget, from config.yaml `teams.<name>` (`budget_cents`, `budget_period`): the spend of
 * every key whose `team` is this one (self-serve keys included) counts against it, and a request is
 * admitted only when both its key's and its team's budgets allow it. Plain data; handed to the store
 * at start and again after every configuration change (OwnerGovernance.setTeams).
 */
export interface TeamBudget {
  readonly name: string;
  /** null: the team has no budget of its own (its keys' spend is still reported). */
  readonly budgetMicrocents: bigint | null;
  readonly budgetPeriod: BudgetPeriod | null;
}

/** A team with its live figures, for the admin plane (GET /api/v1/admin/teams). */
export interface TeamState extends TeamBudget {
  /** Whether the team is in the running configuration (a team named only on keys is not). */
  readonly configured: boolean;
  /** Spend of the team's keys over all time (ledger rows recorded under this team). */
  readonly spentMicrocents: bigint;
  /** Spend in the current period (the same as spentMicrocents without a period). */
  readonly periodSpentMicrocents: bigint;
  readonly periodStartedAt: number | null;
  /** Held by the team's requests in flight. */
  readonly reservedMicrocents: bigint;
  /** Keys that name this team and are not revoked. */
  readonly keys: number;
}
