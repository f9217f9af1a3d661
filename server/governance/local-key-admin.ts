import type { Logger } from '../shared/logger.ts';
import type { BudgetLedger } from './budget-ledger.ts';
import type { CreatedKey, KeyRecord, KeyState, KeyUpdate, NewKey } from './key-record.ts';
import { checkKeyFields } from './key-update.ts';
import type { KeyDirectory } from './keys.ts';
import { checkNewKey, KeyConflict } from './refusals.ts';
import type { TeamState } from './team-budget.ts';
import type { UsageQuery, UsageReport } from './usage-report.ts';
import type { UsageThread } from './usage-thread.ts';

export interface LocalKeyAdminParts {
  /** Where usage is queried: off the owner thread when it can be (usage-thread.ts). */
  readonly usageThread: UsageThread;
  readonly keys: KeyDirectory;
  readonly ledger: BudgetLedger;
  readonly state: (record: KeyRecord) => KeyState;
  readonly wall: () => number;
  readonly log: Logger;
}

/** The admin plane's side of the embedded store (KeyAdmin): every answer immediate but usage's. */
export interface LocalKeyAdmin {
  createKey(spec: NewKey): CreatedKey;
  listKeys(): KeyState[];
  getKey(id: string): KeyState | undefined;
  revokeKey(id: string): KeyState | undefined;
  updateKey(id: string, update: KeyUpdate): KeyState | undefined;
  rotateKey(id: string, graceSeconds: number): CreatedKey | undefined;
  usage(query: UsageQuery): Promise<UsageReport>;
  listTeams(): TeamState[];
}

export function localKeyAdmin({ usageThread, keys, ledger, state, wall, log }: LocalKeyAdminParts): LocalKeyAdmin {
  return {
    createKey(spec) {
      checkNewKey(spec);
      const { record, secret } = keys.create(spec, wall());
      log.info({ keyId: record.id, prefix: record.prefix }, 'key created');
      return { key: state(record), secret };
    },
    listKeys: () => keys.list().map(state),
    getKey(id) {
      const record = keys.get(id);
      return record === undefined ? undefined : state(record);
    },
    revokeKey(id) {
      const before = keys.get(id);
      const record = keys.revoke(id, wall());
      if (record === undefined) return undefined;
      if (before?.revokedAt === null) log.info({ keyId: record.id, prefix: record.prefix }, 'key revoked');
      return state(record);
    },

    updateKey(id, update) {
      checkKeyFields(update);
      const before = keys.get(id);
      if (before === undefined) return undefined;
      const record = keys.update(id, update)!;
      // A new budget or period counts the period's spend from the ledger again (the new period's start).
      if (record.budgetPeriod !== before.budgetPeriod || record.budgetMicrocents !== before.budgetMicrocents) ledger.recount(id);
      log.info({ keyId: id, prefix: record.prefix, changed: Object.keys(update) }, 'key updated');
      return state(record);
    },

    rotateKey(id, graceSeconds) {
      if (!Number.isSafeInteger(graceSeconds) || graceSeconds < 0 || !Number.isSafeInteger(graceSeconds * 1000))
        throw new RangeError('grace_seconds must be a whole number of at least 0');
      const before = keys.get(id);
      if (before === undefined) return undefined;
      if (before.revokedAt !== null) throw new KeyConflict('key_revoked', `key ${id} is revoked: it cannot be rotated; create a new key`);
      if (before.selfServe)
        throw new KeyConflict('self_serve_key', `key ${id} is a self-serve key: its secret is derived from its owner's identity, so revoke it instead`);
      const { record, secret } = keys.rotate(id, graceSeconds, wall())!;
      log.info({ keyId: id, prefix: record.prefix, previousPrefix: before.prefix, graceSeconds }, 'key rotated');
      return { key: state(record), secret };
    },

    usage: (query) => usageThread.query(query),
    listTeams: () => ledger.teams.states(keys.list(), wall()),
  };
}
