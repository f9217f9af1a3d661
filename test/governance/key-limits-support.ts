// Helpers of the key-limits suite (key-limits-behaviour.ts): admissions with a worst case in money
// and tokens, settlements at given tokens, refusals caught whether the store answers at once or with
// a promise, and the instants the period tests cross.
import { expect } from 'vitest';
import type { Admission, KeyRecord, KeyState, OwnerGovernance, Reservation } from '../../server/governance/governance.ts';
import { GatewayFailure, type GatewayError } from '../../server/ir/error.ts';
import { usage } from './support.ts';

/** The refusal a governance call throws or rejects with. */
export async function refusal(run: () => unknown): Promise<GatewayError> {
  try {
    await run();
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayFailure);
    return (error as GatewayFailure).error;
  }
  throw new Error('expected a refusal');
}

/** The plain Error (not a refusal) a governance call throws or rejects with. */
export async function thrown(run: () => unknown): Promise<Error> {
  try {
    await run();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected an error');
}

export const admission = (worstCaseMicrocents: bigint, worstCaseTokens = 0): Admission => ({ worstCaseMicrocents, priced: true, worstCaseTokens });

let settled = 0;

/** Settles with a unique request id; `model` is the ledger's upstream model. */
export function settle(
  governance: OwnerGovernance,
  reservation: Reservation,
  cost: bigint,
  tokens: { input?: number; output?: number; cacheRead?: number; cacheWrite?: number; model?: string } = {},
): Promise<boolean> {
  return governance.settle(reservation, {
    costMicrocents: cost,
    usage: usage(tokens.input ?? 100, tokens.output ?? 20, tokens.cacheRead ?? 0, tokens.cacheWrite ?? 0),
    requestId: `limits-${process.pid}-${++settled}`,
    model: tokens.model ?? 'gpt-4.1-mini',
    lane: 'openai/gpt-4.1-mini',
    estimated: false,
  });
}

/** Admits and settles one request of `cost` (the reservation held at exactly that). */
export async function spend(governance: OwnerGovernance, key: KeyRecord, cost: bigint, tokens: Parameters<typeof settle>[3] = {}): Promise<void> {
  expect(await settle(governance, await governance.admit(key, admission(cost)), cost, tokens)).toBe(true);
}

export async function keyState(governance: OwnerGovernance, id: string): Promise<KeyState> {
  const state = await governance.getKey(id);
  if (state === undefined) throw new Error(`no key ${id}`);
  return state;
}

export const at = (iso: string): number => Date.parse(iso);

/** Fulfilled results of many concurrent calls; every rejection must be `code`. */
export function admitted<T>(results: readonly PromiseSettledResult<T>[], code: string): T[] {
  for (const result of results) {
    if (result.status === 'rejected') expect((result.reason as GatewayFailure).error?.code).toBe(code);
  }
  return results.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
}
