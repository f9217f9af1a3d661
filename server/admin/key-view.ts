import type { components } from '../../generated/admin-api.ts';
import type { KeyState } from '../governance/key-record.ts';
import { budgetCents, isoOrNull, isoTime, remainingCents, remainingMicrocents, spentCents, usd } from './money-view.ts';

type KeyView = components['schemas']['KeyView'];

/**
 * A key as the admin API shows it: never its secret. Spend is what counts against the budget (the
 * current period's when the key has a budget_period), beside the lifetime spend; every amount in
 * cents and as an exact USD string; times in ISO 8601.
 */
export function keyView(key: KeyState): KeyView {
  const budget = key.budgetMicrocents;
  const left = budget === null ? null : remainingMicrocents(budget, key.periodSpentMicrocents, key.reservedMicrocents);
  return {
    id: key.id,
    name: key.name,
    owner: key.owner,
    prefix: key.prefix,
    budget_cents: budget === null ? null : budgetCents(budget),
    budget_period: key.budgetPeriod,
    spent_cents: spentCents(key.periodSpentMicrocents),
    spent_usd: usd(key.periodSpentMicrocents),
    lifetime_spent_cents: spentCents(key.spentMicrocents),
    lifetime_spent_usd: usd(key.spentMicrocents),
    reserved_cents: spentCents(key.reservedMicrocents),
    reserved_usd: usd(key.reservedMicrocents),
    remaining_cents: left === null ? null : remainingCents(left),
    remaining_usd: left === null ? null : usd(left),
    period_started_at: isoOrNull(key.periodStartedAt),
    rpm: key.rpm,
    tpm: key.tpm,
    models: key.models === null ? null : [...key.models],
    expires_at: isoOrNull(key.expiresAt),
    team: key.team,
    metadata: { ...key.metadata },
    self_serve: key.selfServe,
    created_at: isoTime(key.createdAt),
    last_used_at: isoOrNull(key.lastUsedAt),
    revoked_at: isoOrNull(key.revokedAt),
    rotated_at: isoOrNull(key.rotatedAt),
    previous_secret_until: isoOrNull(key.previousSecretUntil),
  };
}
