import { gatewayError, GatewayFailure } from '../ir/error.ts';
import { microcentsToCentsDown, microcentsToCentsUp } from '../shared/money.ts';
import { remainingMicrocents } from './budget-remaining.ts';
import type { KeyRecord, NewKey } from './key-record.ts';
import { checkKeyFields } from './key-update.ts';

/** The refusals governance gives, the same words from either store. */

export function authenticationFailure(code: string, message: string): GatewayFailure {
  return new GatewayFailure(gatewayError('authentication', message, { code }));
}

export const missingKey = () =>
  authenticationFailure(
    'missing_api_key',
    'a gateway key is required: send it as Authorization: Bearer <key>, x-api-key, x-goog-api-key or the key query parameter',
  );
export const invalidKey = () => authenticationFailure('invalid_api_key', 'the key presented is not a valid gateway key');
export const revokedKey = (id: string) => authenticationFailure('key_revoked', `this key (${id}) has been revoked; ask for a new one`);

/** The key as the store knows it now (a caller's copy may predate a revocation or an expiry), else its refusal. */
export function usableKey(record: KeyRecord | undefined, nowMs: number): KeyRecord {
  if (record === undefined) throw invalidKey();
  if (record.revokedAt !== null) throw revokedKey(record.id);
  if (record.expiresAt !== null && nowMs >= record.expiresAt) throw expiredKey(record.id);
  return record;
}

export function rateLimited(rpm: number, retryAfterSeconds: number): GatewayFailure {
  return new GatewayFailure(
    gatewayError('rate_limit', `rate limit exceeded: this key allows ${rpm} requests per minute; retry after ${retryAfterSeconds} s`, {
      code: 'rate_limited',
      retryAfterSeconds,
    }),
  );
}

export function priceUnknown(model: string | undefined): GatewayFailure {
  const named = model === undefined ? 'the model asked for' : `model "${model}"`;
  return new GatewayFailure(
    gatewayError(
      'invalid_request',
      `${named} has no price in the catalog or the configuration, and this key (or its team) has a budget, so the request's cost cannot be bounded; ask the operator to add a price`,
      {
        code: 'model_price_unknown',
      },
    ),
  );
}

/**
 * What a client over a budget may do: wait for its period to start again (`resetsAt`, epoch ms:
 * the budget has a period), or ask for more. A lower max_tokens may fit either way.
 */
function afterBudget(resetsAt: number | undefined, larger: string): string {
  const wait = resetsAt === undefined ? 'do not retry' : `it starts again at ${new Date(resetsAt).toISOString()}: do not retry before then`;
  return `${wait}, or ask for a ${larger} (a lower max_tokens may fit)`;
}

/** `resetsAt`: when the key's budget period starts again (epoch ms); undefined for a lifetime budget. */
export function budgetExceeded(worstCaseMicrocents: bigint, budget: bigint, spent: bigint, reserved: bigint, resetsAt?: number): GatewayFailure {
  const left = remainingMicrocents(budget, spent, reserved);
  return new GatewayFailure(
    gatewayError(
      'billing',
      `budget exceeded: this request could cost up to ${microcentsToCentsUp(worstCaseMicrocents)} cents and the key has ${microcentsToCentsDown(left)} of its ${microcentsToCentsDown(budget)} cents left; ${afterBudget(resetsAt, 'larger budget')}`,
      { code: 'budget_exceeded' },
    ),
  );
}

/** The admin API's schema checks these first; this guards every other caller (key-update.ts). */
export function checkNewKey(spec: NewKey): void {
  checkKeyFields(spec);
}

export const expiredKey = (id: string) =>
  authenticationFailure('key_expired', `this key (${id}) has expired; ask its administrator for a new one or a later expiry`);

/** A key whose `models` allow-list does not name the model or pool asked for. */
export function modelNotAllowed(model: string, allowed: readonly string[]): GatewayFailure {
  return new GatewayFailure(
    gatewayError('permission', `this key may not use model "${model}": it is limited to ${allowed.map((m) => JSON.stringify(m)).join(', ')}`, {
      code: 'model_not_allowed',
    }),
  );
}

/** Over the key's tokens per minute; `retryAfterSeconds` is when enough of the window has passed. */
export function tokensPerMinuteExceeded(tpm: number, worstCaseTokens: number, retryAfterSeconds: number): GatewayFailure {
  const alone = worstCaseTokens > tpm;
  return new GatewayFailure(
    gatewayError(
      'rate_limit',
      alone
        ? `token rate limit: this request may use up to ${worstCaseTokens} tokens (its input and output limit), more than this key's ${tpm} tokens per minute; lower max_tokens or send less`
        : `token rate limit exceeded: this key allows ${tpm} tokens per minute (input + output, held at each request's worst case until it ends); retry after ${retryAfterSeconds} s`,
      { code: 'tokens_per_minute_exceeded', retryAfterSeconds },
    ),
  );
}

/** The team's budget (config.yaml `teams.<name>`) cannot hold the request's worst case; `resetsAt` as for budgetExceeded. */
export function teamBudgetExceeded(
  team: string,
  worstCaseMicrocents: bigint,
  budget: bigint,
  spent: bigint,
  reserved: bigint,
  resetsAt?: number,
): GatewayFailure {
  const left = remainingMicrocents(budget, spent, reserved);
  return new GatewayFailure(
    gatewayError(
      'billing',
      `team budget exceeded: this request could cost up to ${microcentsToCentsUp(worstCaseMicrocents)} cents and team "${team}" has ${microcentsToCentsDown(left)} of its ${microcentsToCentsDown(budget)} cents left; ${afterBudget(resetsAt, 'larger team budget')}`,
      { code: 'team_budget_exceeded' },
    ),
  );
}

/** An admin change the key's state forbids (rotating a revoked or self-serve key): a 409 on the admin plane. */
export class KeyConflict extends Error {
  readonly code: string;
  constructor(code: 'key_revoked' | 'self_serve_key', message: string) {
    super(message);
    this.code = code;
  }
}
