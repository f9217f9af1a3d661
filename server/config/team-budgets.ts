import type { GatewayConfig } from '../../generated/config-types.ts';
import type { TeamBudget } from '../governance/team-budget.ts';
import { centsToMicrocents } from '../shared/money.ts';

/**
 * Every team under `teams:` with its budget (`budget_cents`, `budget_period`; null where absent),
 * in the file's order: what governance holds a team's keys to (OwnerGovernance.setTeams, at start
 * and after every configuration change, since team budgets change live).
 */
export function resolveTeamBudgets(config: GatewayConfig): TeamBudget[] {
  const budgets: TeamBudget[] = [];
  for (const [name, team] of Object.entries(config.teams ?? {})) {
    if (team === undefined) continue;
    budgets.push({
      name,
      budgetMicrocents: team.budget_cents === undefined ? null : centsToMicrocents(team.budget_cents),
      budgetPeriod: team.budget_period ?? null,
    });
  }
  return budgets;
}
