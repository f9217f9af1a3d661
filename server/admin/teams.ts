import type { components } from '../../generated/admin-api.ts';
import type { KeyAdmin } from '../governance/governance.ts';
import type { TeamState } from '../governance/team-budget.ts';
import { noStore } from './keys.ts';
import { budgetCents, isoOrNull, remainingCents, remainingMicrocents, spentCents, usd } from './money-view.ts';
import type { OperationReply } from './reply.ts';

type TeamView = components['schemas']['TeamView'];

/** GET /api/v1/admin/teams: every configured team, then the teams named only on keys. */
export function teamOperations(keys: KeyAdmin | undefined) {
  return {
    async getApiV1AdminTeams(): Promise<OperationReply<'/api/v1/admin/teams', 'get'>> {
      if (keys === undefined) return noStore();
      return { status: 200, body: { data: (await keys.listTeams()).map(teamView) } };
    },
  };
}

/** A team as the admin API shows it, with the same money rules as a key (key-view.ts). */
export function teamView(team: TeamState): TeamView {
  const budget = team.budgetMicrocents;
  const left = budget === null ? null : remainingMicrocents(budget, team.periodSpentMicrocents, team.reservedMicrocents);
  return {
    name: team.name,
    configured: team.configured,
    budget_cents: budget === null ? null : budgetCents(budget),
    budget_usd: budget === null ? null : usd(budget),
    budget_period: team.budgetPeriod,
    spent_cents: spentCents(team.periodSpentMicrocents),
    spent_usd: usd(team.periodSpentMicrocents),
    lifetime_spent_cents: spentCents(team.spentMicrocents),
    lifetime_spent_usd: usd(team.spentMicrocents),
    reserved_cents: spentCents(team.reservedMicrocents),
    reserved_usd: usd(team.reservedMicrocents),
    remaining_cents: left === null ? null : remainingCents(left),
    remaining_usd: left === null ? null : usd(left),
    period_started_at: isoOrNull(team.periodStartedAt),
    keys: team.keys,
  };
}
