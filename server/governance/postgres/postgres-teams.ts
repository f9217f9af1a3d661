import type pg from 'pg';
import type { BudgetPeriod } from '../budget-period.ts';
import type { TeamBudget, TeamState } from '../team-budget.ts';

type Query = <R extends pg.QueryResultRow>(text: string, values: unknown[]) => Promise<R[]>;

/**
 * The teams' budgets as this node's configuration has them (setTeams), in the form the PL/pgSQL
 * takes them: three parallel arrays sent with every reservation batch, so a changed configuration
 * is in force from this node's next batch and no node's budgets are written anywhere.
 */
export class TeamBudgets {
  #teams: readonly TeamBudget[] = [];
  #names: string[] = [];
  #budgets: (bigint | null)[] = [];
  #periods: (BudgetPeriod | null)[] = [];

  set(teams: readonly TeamBudget[]): void {
    this.#teams = [...teams].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    this.#names = this.#teams.map((t) => t.name);
    this.#budgets = this.#teams.map((t) => t.budgetMicrocents);
    this.#periods = this.#teams.map((t) => t.budgetPeriod);
  }

  /** Whether the team has a budget here: its keys, like a key with a budget, may only call priced models. */
  hasBudget(name: string | null): boolean {
    return name !== null && this.#teams.some((t) => t.name === name && t.budgetMicrocents !== null);
  }

  /** The team's budget period here; null: lifetime, or no budget. */
  periodOf(name: string): BudgetPeriod | null {
    return this.#teams.find((t) => t.name === name)?.budgetPeriod ?? null;
  }

  /** The arguments p_team_names, p_team_budgets, p_team_periods. */
  arguments(): [string[], (bigint | null)[], (BudgetPeriod | null)[]] {
    return [this.#names, this.#budgets, this.#periods];
  }

  /**
   * Every configured team, then every team named only on keys, by name, with its figures from the
   * ledger (the truth the reservation counters are kept equal to) and its money held in flight.
   * `nowMs` null: the current period on the database clock.
   */
  async list(query: Query, nowMs: number | null): Promise<TeamState[]> {
    const [names, budgets, periods] = this.arguments();
    const rows = await query<{
      name: string;
      configured: boolean;
      budget: string | null;
      period: BudgetPeriod | null;
      started: string | null;
      spent: string;
      period_spent: string;
      reserved: string;
      keys: number;
    }>(
      `WITH clock AS (SELECT coalesce($4::bigint, gateway_now_ms()) AS now),
       configured AS (SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[]) AS c(name, budget, period)),
       named AS (SELECT name FROM configured UNION SELECT team FROM gateway_keys WHERE team IS NOT NULL),
       teams AS (
         SELECT n.name, c.name IS NOT NULL AS configured, c.budget, c.period, gateway_period_start(c.period, clock.now) AS started
         FROM named n CROSS JOIN clock LEFT JOIN configured c ON c.name = n.name)
       SELECT t.name, t.configured, t.budget, t.period, t.started,
         (SELECT coalesce(sum(cost_microcents), 0) FROM gateway_spend_ledger l WHERE l.team = t.name)::text AS spent,
         (SELECT coalesce(sum(cost_microcents), 0) FROM gateway_spend_ledger l WHERE l.team = t.name AND l.created_at >= coalesce(t.started, 0))::text AS period_spent,
         coalesce((SELECT reserved_microcents FROM gateway_teams g WHERE g.name = t.name), 0)::text AS reserved,
         (SELECT count(*) FROM gateway_keys k WHERE k.team = t.name AND k.revoked_at IS NULL)::int AS keys
       FROM teams t ORDER BY t.configured DESC, t.name`,
      [names, budgets, periods, nowMs],
    );
    return rows.map((row) => ({
      name: row.name,
      configured: row.configured,
      budgetMicrocents: row.budget === null ? null : BigInt(row.budget),
      budgetPeriod: row.period,
      spentMicrocents: BigInt(row.spent),
      periodSpentMicrocents: BigInt(row.period_spent),
      periodStartedAt: row.started === null ? null : Number(row.started),
      reservedMicrocents: BigInt(row.reserved),
      keys: row.keys,
    }));
  }
}
