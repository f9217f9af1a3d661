import type { KeyRecord } from '../governance/key-record.ts';
import { modelNotAllowed } from '../governance/refusals.ts';

/**
 * A key's `models` allow-list, checked against the configured name a request resolved to (a model
 * or a pool: what clients send). No key (governance off) or no list: every name. The list comes
 * from the KeyRecord governance returned for this very request, so a change is in force at once.
 */
export function requireAllowedModel(key: KeyRecord | undefined, name: string): void {
  const allowed = key?.models;
  if (allowed === undefined || allowed === null) return;
  if (!allowed.includes(name)) throw modelNotAllowed(name, allowed);
}

/** Whether a key may use the model or pool `name` (GET /v1/models and /stats show only those). */
export function modelAllowed(key: KeyRecord | undefined, name: string): boolean {
  const allowed = key?.models;
  return allowed === undefined || allowed === null || allowed.includes(name);
}
