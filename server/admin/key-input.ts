import type { components } from '../../generated/admin-api.ts';
import type { RuntimeConfig } from '../config/runtime-config.ts';
import type { KeyUpdate, NewKey } from '../governance/key-record.ts';
import { centsToMicrocents } from '../shared/money.ts';

type KeyCreateBody = components['schemas']['KeyCreate'];
type KeyUpdateBody = components['schemas']['KeyUpdate'];

/** A key body turned into the store's terms, or the problems (one line each) that make it a 400. */
export type KeyInput<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly message: string };

/** The names a key may point at, from the running configuration (they move with every applied reload). */
export type KeyTargets = Pick<RuntimeConfig, 'models' | 'pools' | 'teamBudgets'>;

/**
 * POST /api/v1/admin/keys: what the schema cannot check. The expiry must be ahead (a key born
 * expired is a mistake); the team and the allowed models must exist in the running configuration.
 */
export function newKeyInput(body: KeyCreateBody, targets: KeyTargets, nowMs: number): KeyInput<NewKey> {
  const problems = referenceProblems(body, targets);
  const expiresAt = body.expires_at === undefined ? undefined : Date.parse(body.expires_at);
  if (expiresAt !== undefined && Number.isNaN(expiresAt)) problems.push(unreadableTime(body.expires_at));
  else if (expiresAt !== undefined && expiresAt <= nowMs) {
    problems.push(`body.expires_at: ${body.expires_at} is not in the future; a new key must expire later than now (to end a key, revoke it)`);
  }
  if (problems.length > 0) return { ok: false, message: problems.join('; ') };
  return {
    ok: true,
    value: {
      name: body.name,
      owner: body.owner,
      budgetMicrocents: body.budget_cents === undefined ? undefined : centsToMicrocents(body.budget_cents),
      budgetPeriod: body.budget_period,
      rpm: body.rpm,
      tpm: body.tpm,
      models: body.models,
      expiresAt,
      team: body.team,
      metadata: body.metadata,
    },
  };
}

/**
 * PATCH /api/v1/admin/keys/{id}: a member left out stays out (unchanged), null passes through
 * (cleared). Any expiry is taken, a past one included: that expires the key now.
 */
export function keyUpdateInput(body: KeyUpdateBody, targets: KeyTargets): KeyInput<KeyUpdate> {
  const problems = referenceProblems(body, targets);
  const expiresAt = typeof body.expires_at === 'string' ? Date.parse(body.expires_at) : body.expires_at;
  if (Number.isNaN(expiresAt)) problems.push(unreadableTime(body.expires_at));
  if (problems.length > 0) return { ok: false, message: problems.join('; ') };
  const update: { -readonly [K in keyof KeyUpdate]: KeyUpdate[K] } = {};
  if (body.name !== undefined) update.name = body.name;
  if (body.owner !== undefined) update.owner = body.owner;
  if (body.budget_cents !== undefined) update.budgetMicrocents = body.budget_cents === null ? null : centsToMicrocents(body.budget_cents);
  if (body.budget_period !== undefined) update.budgetPeriod = body.budget_period;
  if (body.rpm !== undefined) update.rpm = body.rpm;
  if (body.tpm !== undefined) update.tpm = body.tpm;
  if (body.models !== undefined) update.models = body.models;
  if (expiresAt !== undefined) update.expiresAt = expiresAt;
  if (body.team !== undefined) update.team = body.team;
  if (body.metadata !== undefined) update.metadata = body.metadata;
  return { ok: true, value: update };
}

/** The team and the allowed models, each checked against the running configuration; the message lists what there is. */
function referenceProblems(body: { team?: string | null; models?: string[] | null }, targets: KeyTargets): string[] {
  const problems: string[] = [];
  // Every team under teams: counts, with or without self-serve keys (child_default) or a budget.
  if (typeof body.team === 'string' && !targets.teamBudgets.some((team) => team.name === body.team)) {
    const teams = targets.teamBudgets.map((team) => team.name);
    problems.push(
      `body.team: ${JSON.stringify(body.team)} is not a team of the running configuration (${
        teams.length === 0 ? 'no teams are configured: add one under teams: in config.yaml' : `teams: ${quoted(teams)}`
      })`,
    );
  }
  const unknown = (body.models ?? []).filter((name) => !targets.models.has(name) && !targets.pools.has(name));
  if (unknown.length > 0) {
    problems.push(
      `body.models: ${quoted(unknown)} ${unknown.length === 1 ? 'is neither a model nor a pool' : 'are neither models nor pools'} of the running configuration (models: ${
        quoted([...targets.models.keys()]) || 'none'
      }; pools: ${quoted([...targets.pools.keys()]) || 'none'})`,
    );
  }
  return problems;
}

/** The schema's date-time format lets through what JavaScript's dates cannot hold (a leap second, :60). */
function unreadableTime(text: string | null | undefined): string {
  return `body.expires_at: ${String(text)} is not a time this gateway can read; give one like 2026-12-31T23:59:59Z`;
}

function quoted(names: readonly string[]): string {
  return names.map((name) => JSON.stringify(name)).join(', ');
}
