import { BUDGET_PERIODS } from './budget-period.ts';
import type { KeyRecord, KeyUpdate, NewKey } from './key-record.ts';

/** The metadata limits the admin API's schema states; kept here too so no caller stores more. */
export const METADATA_MAX_ENTRIES = 20;
export const METADATA_MAX_NAME = 64;
export const METADATA_MAX_VALUE = 512;

type Fields = NewKey | KeyUpdate;

const wholeAtLeastOne = (n: number) => Number.isSafeInteger(n) && n >= 1;

/**
 * The admin API's schema checks these first; this guards every other caller (the CLI against an
 * old server, tests, self-serve issuance) with a RangeError. undefined and null are always valid.
 */
export function checkKeyFields(fields: Fields): void {
  const { budgetMicrocents, budgetPeriod, rpm, tpm, models, expiresAt, metadata } = fields;
  if (budgetMicrocents != null && budgetMicrocents < 0n) throw new RangeError('budget cannot be negative');
  if (budgetPeriod != null && !BUDGET_PERIODS.includes(budgetPeriod)) throw new RangeError(`budget_period must be one of ${BUDGET_PERIODS.join(', ')}`);
  if (rpm != null && !wholeAtLeastOne(rpm)) throw new RangeError('rpm must be a whole number of at least 1');
  if (tpm != null && !wholeAtLeastOne(tpm)) throw new RangeError('tpm must be a whole number of at least 1');
  if (models != null && (!Array.isArray(models) || models.some((m) => typeof m !== 'string' || m.length === 0)))
    throw new RangeError('models must be a list of model or pool names');
  if (expiresAt != null && !Number.isSafeInteger(expiresAt)) throw new RangeError('expires_at must be a time in milliseconds');
  if (metadata != null) checkMetadata(metadata);
}

function checkMetadata(metadata: Readonly<Record<string, string>>): void {
  const entries = Object.entries(metadata);
  if (entries.length > METADATA_MAX_ENTRIES) throw new RangeError(`metadata holds at most ${METADATA_MAX_ENTRIES} entries`);
  for (const [name, value] of entries) {
    if (name.length < 1 || name.length > METADATA_MAX_NAME) throw new RangeError(`metadata names are 1 to ${METADATA_MAX_NAME} characters`);
    if (typeof value !== 'string' || value.length > METADATA_MAX_VALUE)
      throw new RangeError(`metadata values are strings of at most ${METADATA_MAX_VALUE} characters`);
  }
}

/** The record a KeyUpdate makes: a member left out is kept, null clears it (metadata: to {}). */
export function applyKeyUpdate(record: KeyRecord, update: KeyUpdate): KeyRecord {
  const pick = <K extends keyof KeyUpdate & keyof KeyRecord>(name: K): KeyRecord[K] =>
    (update[name] === undefined ? record[name] : update[name]) as KeyRecord[K];
  return {
    ...record,
    name: pick('name'),
    owner: pick('owner'),
    budgetMicrocents: pick('budgetMicrocents'),
    budgetPeriod: pick('budgetPeriod'),
    rpm: pick('rpm'),
    tpm: pick('tpm'),
    models: update.models === undefined ? record.models : update.models === null ? null : [...update.models],
    expiresAt: pick('expiresAt'),
    team: pick('team'),
    metadata: update.metadata === undefined ? record.metadata : { ...(update.metadata ?? {}) },
  };
}
