import type { components } from '../../generated/admin-api.ts';
import type { KeyState } from '../governance/key-record.ts';
import { microcentsToCentsDown, microcentsToCentsUp } from '../shared/money.ts';

type KeyView = components['schemas']['KeyView'];

/** A key as the admin API shows it: cents (spend rounded up, what is left rounded down), ISO times, no secret. */
export function keyView(key: KeyState): KeyView {
  const budget = key.budgetMicrocents;
  return {
    id: key.id,
    name: key.name,
    owner: key.owner,
    prefix: key.prefix,
    budget_cents: budget === null ? null : microcentsToCentsDown(budget),
    spent_cents: microcentsToCentsUp(key.spentMicrocents),
    remaining_cents: budget === null ? null : Math.max(0, microcentsToCentsDown(budget - key.spentMicrocents)),
    rpm: key.rpm,
    created_at: iso(key.createdAt),
    last_used_at: key.lastUsedAt === null ? null : iso(key.lastUsedAt),
    revoked_at: key.revokedAt === null ? null : iso(key.revokedAt),
  };
}

function iso(epochMs: number): string {
  return new Date(epochMs).toISOString();
}
