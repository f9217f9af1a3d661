import { accessSync, constants } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { GatewayFailure, type GatewayError } from '../ir/error.ts';
import type { Logger } from '../shared/logger.ts';
import { BudgetLedger, type Reservation, type Settlement } from './budget-ledger.ts';
import { periodStart } from './budget-period.ts';
import { IdentityKeys, type DeriveSecret, type IdentityKeyRequest, type IssuedIdentityKey } from './identity-keys.ts';
import { presentedKey } from './key-carriers.ts';
import type { CreatedKey, KeyRecord, KeyRef, KeyState, KeyUpdate, NewKey } from './key-record.ts';
import type { TeamBudget, TeamState } from './team-budget.ts';
import type { UsageQuery, UsageReport } from './usage-report.ts';
import { KeyDirectory } from './keys.ts';
import { LastUsed } from './last-used.ts';
import { requireAllowedModel } from './model-allow-list.ts';
import { localKeyAdmin } from './local-key-admin.ts';
import { RateLimiter, type MillisecondClock } from './rate-limiter.ts';
import { checkNewKey, invalidKey, missingKey, priceUnknown, rateLimited, tokensPerMinuteExceeded, usableKey } from './refusals.ts';
import { resolveServerSecret } from './server-secret.ts';
import { SettlementBatch } from './settlement-batch.ts';
import { openStore, type Store } from './store.ts';
import { wholeTokens } from './token-price.ts';
import { TokenWindow } from './token-window.ts';
import { queryUsage } from './usage-query.ts';
import { UsageThread } from './usage-thread.ts';

export type {
  CreatedKey,
  DeriveSecret,
  IdentityKeyRequest,
  IssuedIdentityKey,
  KeyRecord,
  KeyRef,
  KeyState,
  KeyUpdate,
  NewKey,
  Reservation,
  Settlement,
  TeamBudget,
  TeamState,
  UsageQuery,
  UsageReport,
};

/** A local implementation answers at once; a proxy to the owning thread answers with a promise. */
export type Awaitable<T> = T | Promise<T>;

export interface Admission {
  /** worstCaseMicrocents() of the request; 0n when the model has no price. */
  readonly worstCaseMicrocents: bigint;
  /** Whether the model has a known price (a key with a budget may only call priced models). */
  readonly priced: boolean;
  /**
   * The model or pool asked for, as the client named it: held to the key's `models` allow-list
   * (403 model_not_allowed) and named in the refusal when it has no price.
   */
  readonly model?: string;
  /**
   * The most tokens (input + output) the request can use, held against the key's tpm until it
   * settles on the real usage (or is released). An upper bound like the money: the body's bytes
   * bound its input tokens, and the output limit its output.
   */
  readonly worstCaseTokens: number;
}

/**
 * What the data plane asks of governance, one request at a time. Arguments and results are plain
 * values (ids, numbers, bigints, plain objects) and refusals are GatewayFailures whose `error` is
 * plain too, so the same interface can be served across a MessagePort by the one thread that owns
 * the state: callers must await every result.
 */
export interface Governance {
  /** The key the request presents; 401 when it presents none, an unknown one, a revoked one or an expired one. */
  authenticate(headers: IncomingHttpHeaders, query: URLSearchParams): Awaitable<KeyRecord>;
  /** Rate limit (429), then what reserve() checks: a reservation to settle or release. */
  admit(key: KeyRef, admission: Admission): Awaitable<Reservation>;
  /** Committed to the store before it resolves: end the response after. False: already settled. */
  settle(reservation: Reservation, settlement: Settlement): Awaitable<boolean>;
  /** For a request no upstream could have billed. Idempotent. */
  release(reservation: Reservation): Awaitable<void>;
  /** Records last_used_at (in memory; written every few seconds). */
  markUsed(key: KeyRef): void;
  /**
   * The first of a request's two steps, from its headers alone, before its body is read: the key
   * (401 thrown: missing, unknown, revoked, expired), its rate limit (a refusal that names the key), and
   * markUsed. One message from a worker thread.
   */
  authorize(headers: IncomingHttpHeaders, query: URLSearchParams): Awaitable<Pass>;
  /**
   * The second step, once the body is read and the request's worst case is known: the allow-list
   * (403), price (400), the key's budget (402), its team's budget (402) and its tpm (429) refusals are thrown, and give back
   * the rate the first step took; the money and the tokens are held together.
   */
  reserve(key: KeyRef, admission: Admission): Awaitable<Reservation>;
  close(): Awaitable<void>;
}

/** A request whose key is valid: may it go on (to read its body), or why not (its rate limit). */
export type Pass = { readonly key: KeyRecord } | { readonly key: KeyRecord; readonly refusal: GatewayError };

/** What the admin plane asks of governance. */
export interface KeyAdmin {
  createKey(spec: NewKey): Awaitable<CreatedKey>;
  /** Oldest first. */
  listKeys(): Awaitable<KeyState[]>;
  getKey(id: string): Awaitable<KeyState | undefined>;
  /** The revoked key; revoking again returns it unchanged. undefined: no such key. */
  revokeKey(id: string): Awaitable<KeyState | undefined>;
  /** The key changed (in force for its next request). undefined: no such key. */
  updateKey(id: string, update: KeyUpdate): Awaitable<KeyState | undefined>;
  /**
   * A new secret for the same key (id, spend, limits); the old one is still accepted for
   * `graceSeconds` (0: refused at once). undefined: no such key. Throws KeyConflict (refusals.ts)
   * for a revoked key or a self-serve key (its secret is derived: revoke it instead).
   */
  rotateKey(id: string, graceSeconds: number): Awaitable<CreatedKey | undefined>;
  /** The spend ledger summed and grouped. */
  usage(query: UsageQuery): Awaitable<UsageReport>;
  /** Every configured team, then every team named only on keys, by name. */
  listTeams(): Awaitable<TeamState[]>;
}

/**
 * The store as the thread that owns it sees it: one interface, two implementations. LocalGovernance
 * (below, the embedded SQLite file: one process, every answer immediate) and PostgresGovernance
 * (postgres/postgres-governance.ts: a database shared by a fleet, every answer a promise). The
 * worker channel, the key issuer, the admin plane and readiness use only this.
 */
export interface OwnerGovernance extends Governance, KeyAdmin {
  /** authenticate() after the carriers are read (presentedKey(), a pure function). */
  authenticatePresented(secret: string | undefined): Awaitable<KeyRecord>;
  /** authorize() after the carriers are read. */
  authorizePresented(secret: string | undefined): Awaitable<Pass>;
  settle(reservation: Reservation, settlement: Settlement): Promise<boolean>;
  /** Self-serve keys: the person's live key, or the next generation's with the team's budget. */
  issueIdentityKey(request: IdentityKeyRequest, derive: DeriveSecret): Awaitable<{ issued: IssuedIdentityKey; key: KeyState }>;
  /** Throws (or rejects) when the store cannot be used (readiness). */
  ping(): Awaitable<void>;
  /** The teams' budgets from the configuration: at start, and after every configuration change. */
  setTeams(teams: readonly TeamBudget[]): void;
}

/** The implementation in the thread that owns the store: every answer is immediate. */
export interface LocalGovernance extends OwnerGovernance {
  authenticate(headers: IncomingHttpHeaders, query: URLSearchParams): KeyRecord;
  /**
   * authenticate() after the carriers are read (presentedKey(), a pure function): a proxy reads
   * them in its own thread and sends only this string, not the request's headers.
   */
  authenticatePresented(secret: string | undefined): KeyRecord;
  /** authorize() after the carriers are read. */
  authorizePresented(secret: string | undefined): Pass;
  reserve(key: KeyRef, admission: Admission): Reservation;
  admit(key: KeyRef, admission: Admission): Reservation;
  settle(reservation: Reservation, settlement: Settlement): Promise<boolean>;
  release(reservation: Reservation): void;
  close(): void;
  createKey(spec: NewKey): CreatedKey;
  listKeys(): KeyState[];
  getKey(id: string): KeyState | undefined;
  revokeKey(id: string): KeyState | undefined;
  updateKey(id: string, update: KeyUpdate): KeyState | undefined;
  rotateKey(id: string, graceSeconds: number): CreatedKey | undefined;
  /** Answered off this thread (usage-thread.ts): a large ledger's GROUP BY does not hold up admissions. */
  usage(query: UsageQuery): Promise<UsageReport>;
  listTeams(): TeamState[];
  /**
   * Self-serve keys: the person's live key, or the next generation's with the team's budget.
   * `derive` runs here, synchronously: callers in other threads go through an owner-side service.
   */
  issueIdentityKey(request: IdentityKeyRequest, derive: DeriveSecret): { issued: IssuedIdentityKey; key: KeyState };
  /** Throws when the store cannot be read or its file is gone or not writable (readiness). */
  ping(): void;
  /** The SQLite store, which also keeps the configuration history (config/sqlite-config-history.ts). */
  readonly store: Store;
}

export interface GovernanceOptions {
  readonly dbPath: string;
  /** The configured governance_secret; undefined: one kept in the store is used (see server-secret.ts). */
  readonly secret: string | undefined;
  /** Monotonic milliseconds for the rate windows (rpm and tpm). */
  readonly clock: MillisecondClock;
  readonly log: Logger;
  /**
   * Milliseconds since the epoch for stored times (created_at, ...) and for what follows the
   * calendar: budget periods, expiry, a rotated secret's grace; Date.now by default.
   */
  readonly wallClock?: () => number;
  /** How often last_used_at is written; 5 s by default. */
  readonly lastUsedFlushMs?: number;
}

const LAST_USED_FLUSH_MS = 5000;

/** Opens the store (throwing an Error that names the file when it cannot) and loads keys and spend. */
export function createGovernance(options: GovernanceOptions): LocalGovernance {
  const wall = options.wallClock ?? Date.now;
  const store = openStore(options.dbPath);
  let keys: KeyDirectory;
  let ledger: BudgetLedger;
  let lastUsed: LastUsed;
  let identityKeys: IdentityKeys;
  try {
    const secret = resolveServerSecret(store, options.secret);
    if (secret.fromStore) {
      options.log.warn(
        { dbPath: options.dbPath },
        'governance_secret is not configured: key hashes use a secret kept in the database itself; set governance_secret ({ env } or { file }) before issuing keys, so a copied database alone cannot confirm a key',
      );
    }
    keys = new KeyDirectory(store, secret.value);
    ledger = new BudgetLedger({ store, keyOf: (id) => keys.get(id), now: wall });
    lastUsed = new LastUsed(store);
    identityKeys = new IdentityKeys(store, keys);
  } catch (error) {
    store.close();
    throw error;
  }
  const limiter = new RateLimiter(options.clock);
  const tokens = new TokenWindow(options.clock);
  const settlements = new SettlementBatch(ledger);
  const usageThread = new UsageThread(
    store.path,
    (query) => queryUsage(store.db, query),
    (message) => options.log.warn(message),
  );
  const flushTimer = setInterval(() => flushLastUsed(), options.lastUsedFlushMs ?? LAST_USED_FLUSH_MS);
  flushTimer.unref();
  let closed = false;

  function flushLastUsed(): void {
    try {
      lastUsed.flush();
    } catch (error) {
      options.log.warn({ err: error }, 'could not write last_used_at (will retry)');
    }
  }

  /** The key as it is now: a caller's copy may predate a revocation, an expiry or a change. */
  const usable = (key: KeyRef): KeyRecord => usableKey(keys.get(key.id), wall());

  function authenticatePresented(secret: string | undefined): KeyRecord {
    if (secret === undefined) throw missingKey();
    const record = keys.findBySecret(secret, wall());
    if (record === undefined) throw invalidKey();
    return usable(record);
  }

  function state(record: KeyRecord): KeyState {
    const period = record.budgetPeriod;
    return {
      ...record,
      spentMicrocents: ledger.spent(record.id),
      periodSpentMicrocents: ledger.counted(record.id),
      periodStartedAt: period === null ? null : periodStart(period, wall()),
      reservedMicrocents: ledger.reserved(record.id),
      lastUsedAt: lastUsed.get(record.id),
    };
  }

  /** Takes one request from the key's rate; throws a 429 when there is none left. */
  function takeRate(record: KeyRecord): void {
    if (record.rpm === null) return;
    const decision = limiter.take(record.id, record.rpm);
    if (!decision.allowed) throw rateLimited(record.rpm, decision.retryAfterSeconds);
  }

  function admit(key: KeyRef, admission: Admission): Reservation {
    takeRate(usable(key));
    return reserve(key, admission);
  }

  /**
   * The allow-list (403), price (400), the key's budget (402), its team's budget (402), its tokens
   * per minute (429), for a request whose rate was taken: a refusal gives the rate back and holds nothing.
   */
  function reserve(key: KeyRef, admission: Admission): Reservation {
    const record = usable(key); // revoked or expired while its body was read: refused now
    try {
      if (admission.model !== undefined) requireAllowedModel(record, admission.model);
      // A budget (the key's or its team's) needs a price to bound what the request can cost.
      const bounded = record.budgetMicrocents !== null || (record.team !== null && ledger.teams.hasBudget(record.team));
      if (bounded && !admission.priced) throw priceUnknown(admission.model);
      const reservation = ledger.reserve(record.id, admission.worstCaseMicrocents);
      try {
        if (record.tpm !== null) holdTokens(record.id, record.tpm, reservation.id, admission.worstCaseTokens);
      } catch (error) {
        ledger.release(reservation); // refused on tokens: the money is not held either
        throw error;
      }
      return reservation;
    } catch (error) {
      if (record.rpm !== null) limiter.refund(record.id); // a refused request does not use up the rate
      throw error;
    }
  }

  /** Holds the request's worst-case tokens in the key's minute, else 429 tokens_per_minute_exceeded. */
  function holdTokens(keyId: string, tpm: number, reservationId: number, worstCaseTokens: number): void {
    // Checked where it is used: a key without a tpm never reads it.
    if (!Number.isSafeInteger(worstCaseTokens) || worstCaseTokens < 0)
      throw new RangeError(`worstCaseTokens must be a whole number of at least 0 (got ${worstCaseTokens})`);
    const decision = tokens.decide(keyId, tpm, worstCaseTokens);
    if (!decision.allowed) throw tokensPerMinuteExceeded(tpm, worstCaseTokens, decision.retryAfterSeconds);
    tokens.hold(keyId, reservationId, worstCaseTokens);
  }

  function authorizePresented(secret: string | undefined): Pass {
    const key = authenticatePresented(secret);
    try {
      takeRate(key);
    } catch (error) {
      if (error instanceof GatewayFailure) return { key, refusal: error.error };
      throw error;
    }
    lastUsed.mark(key.id, wall());
    return { key };
  }

  return {
    authenticate: (headers, query) => authenticatePresented(presentedKey(headers, query)),
    authenticatePresented,
    authorize: (headers, query) => authorizePresented(presentedKey(headers, query)),
    authorizePresented,

    admit,
    reserve,

    settle(reservation, settlement) {
      // The real tokens (input includes cache) take the place of the worst case held for tpm.
      tokens.settle(reservation.id, wholeTokens(settlement.usage.inputTokens) + wholeTokens(settlement.usage.outputTokens));
      return settlements.settle(reservation, settlement);
    },
    release(reservation) {
      ledger.release(reservation);
      tokens.release(reservation.id);
    },
    markUsed: (key) => lastUsed.mark(key.id, wall()),

    ...localKeyAdmin({ usageThread, keys, ledger, state, wall, log: options.log }),
    setTeams: (teams) => ledger.teams.set(teams),

    issueIdentityKey(request, derive) {
      checkNewKey({ budgetMicrocents: request.budgetMicrocents ?? undefined, rpm: request.rpm ?? undefined });
      const issued = identityKeys.issue(request, derive, wall());
      if (issued.created)
        options.log.info({ keyId: issued.record.id, prefix: issued.record.prefix, team: issued.team, generation: issued.generation }, 'self-serve key issued');
      return { issued, key: state(issued.record) };
    },

    store,

    ping() {
      if (closed) throw new Error('the store is closed');
      // The file itself (a volume unmounted or the file deleted while open), then a read.
      if (store.path !== ':memory:') accessSync(store.path, constants.R_OK | constants.W_OK);
      store.db.prepare('SELECT count(*) FROM sqlite_master').get();
    },

    close() {
      if (closed) return;
      closed = true;
      usageThread.close();
      settlements.flush();
      clearInterval(flushTimer);
      flushLastUsed();
      store.close();
    },
  };
}
