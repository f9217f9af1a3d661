// A virtual key for people: the "label  value" block of `keys create`, `update`, `rotate` and
// `show`, and its one-word status for `keys list`.
import type { KeyView } from '../clients-ts/src/index.ts';
import { cents, dollars, fields, orNone } from './output.ts';

/** active, revoked or expired (at the moment it is shown). */
export function keyStatus(key: KeyView, now = Date.now()): string {
  if (key.revoked_at !== null) return 'revoked';
  if (key.expires_at !== null && Date.parse(key.expires_at) <= now) return 'expired';
  return 'active';
}

/** The budget and its period: "$50.00 monthly", "$5.00 (lifetime)", "none". */
export function budgetText(key: Pick<KeyView, 'budget_cents' | 'budget_period'>): string {
  if (key.budget_cents === null) return 'none';
  return `${cents(key.budget_cents)} ${key.budget_period ?? '(lifetime)'}`;
}

export function renderKey(key: KeyView, extra: readonly (readonly [string, string])[] = []): string {
  const metadata = Object.entries(key.metadata);
  return fields([
    ['id', key.id],
    ['name', key.name ?? ''],
    ['owner', key.owner ?? ''],
    ['prefix', key.prefix],
    ['status', keyStatus(key)],
    ['budget', budgetText(key)],
    [key.budget_period === null ? 'spent' : 'spent this period', `${cents(key.spent_cents)} (exactly ${dollars(key.spent_usd)})`],
    ...(key.budget_period === null ? [] : ([['period started', key.period_started_at ?? '']] as const)),
    ['lifetime spent', dollars(key.lifetime_spent_usd)],
    ['in flight', dollars(key.reserved_usd)],
    ['remaining', key.remaining_cents === null ? 'no budget' : `${cents(key.remaining_cents)} (exactly ${dollars(key.remaining_usd)})`],
    ['rpm', orNone(key.rpm)],
    ['tpm', orNone(key.tpm)],
    ['models', key.models === null ? 'all' : key.models.join(', ')],
    ['team', key.team ?? 'none'],
    ['expires', key.expires_at ?? 'never'],
    ['metadata', metadata.length === 0 ? 'none' : metadata.map(([name, value]) => `${name}=${value}`).join(', ')],
    ...(key.self_serve ? ([['self-serve', 'yes (issued over OIDC: revoke it, it cannot be rotated)']] as const) : []),
    ['created', key.created_at],
    ['last used', key.last_used_at ?? 'never'],
    ...(key.revoked_at === null ? [] : ([['revoked', key.revoked_at]] as const)),
    ...(key.rotated_at === null ? [] : ([['rotated', key.rotated_at]] as const)),
    ...(key.previous_secret_until === null ? [] : ([['old secret until', key.previous_secret_until]] as const)),
    ...extra,
  ]);
}
