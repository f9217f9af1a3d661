import type { KeyRecord } from './key-record.ts';
import { modelNotAllowed } from './refusals.ts';

/**
 * A key's `models` allow-list, checked against the configured name a request resolved to (a model
 * or a pool: what clients send). No key (governance off) or no list: every name. Checked by both
 * stores' reserve() on the record as it is then (so a PATCH is in force at once, and the refusal
 * gives back the rpm the request took), and by the data plane where nothing is reserved
 * (count_tokens, /v1/models, /stats).
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
