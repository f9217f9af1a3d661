import type { Admission, Reservation, Settlement } from './governance.ts';

/**
 * The governance channel's messages (governance-channel.ts) as flat arrays of primitives: an op
 * code, the call's id and its arguments one after the other, the fields of a settlement or a
 * reservation spread out. A MessagePort copies a message with V8's serializer, which is several
 * times dearer per nested object than per primitive, and the receiver then builds every object
 * again; the three calls a request makes (authorize, reserve, settle) and their answers carried
 * about 30 values in nested objects. Each op has a fixed number of slots, so the reader knows
 * where the next call starts.
 */

export const OP_AUTHORIZE = 1;
export const OP_RESERVE = 2;
export const OP_SETTLE = 3;
export const OP_RELEASE = 4;
/** No id: nothing is answered. */
export const OP_MARK_USED = 5;
/** The calls made rarely (authenticate, admit, self-serve keys): id and the call as one object. */
export const OP_OTHER = 6;

export type OtherCall =
  | { readonly op: 'authenticate'; readonly secret: string | undefined }
  | { readonly op: 'admit'; readonly keyId: string; readonly admission: Admission }
  | { readonly op: 'issueKey'; readonly person: unknown };

/** Appends a reserve call. */
export function writeReserve(out: unknown[], id: number, keyId: string, admission: Admission): void {
  out.push(OP_RESERVE, id, keyId, admission.worstCaseMicrocents, admission.priced, admission.model, admission.worstCaseTokens);
}

export function readAdmission(m: readonly unknown[], at: number): Admission {
  const worstCaseMicrocents = m[at] as bigint;
  const priced = m[at + 1] as boolean;
  const model = m[at + 2] as string | undefined;
  const worstCaseTokens = m[at + 3] as number;
  return model === undefined ? { worstCaseMicrocents, priced, worstCaseTokens } : { worstCaseMicrocents, priced, model, worstCaseTokens };
}

/** Appends a settle call. */
export function writeSettle(out: unknown[], id: number, reservation: Reservation, settlement: Settlement): void {
  const { usage } = settlement;
  out.push(
    OP_SETTLE,
    id,
    reservation.id,
    reservation.keyId,
    reservation.microcents,
    settlement.costMicrocents,
    usage.inputTokens,
    usage.outputTokens,
    usage.cacheReadTokens,
    usage.cacheWriteTokens,
    usage.reasoningTokens,
    settlement.requestId,
    settlement.model,
    settlement.lane,
    settlement.estimated,
  );
}

export function readReservation(m: readonly unknown[], at: number): Reservation {
  return { id: m[at] as number, keyId: m[at + 1] as string, microcents: m[at + 2] as bigint };
}

export function readSettlement(m: readonly unknown[], at: number): Settlement {
  return {
    costMicrocents: m[at] as bigint,
    usage: {
      inputTokens: m[at + 1] as number,
      outputTokens: m[at + 2] as number,
      cacheReadTokens: m[at + 3] as number,
      cacheWriteTokens: m[at + 4] as number,
      reasoningTokens: m[at + 5] as number,
    },
    requestId: m[at + 6] as string,
    model: m[at + 7] as string,
    lane: m[at + 8] as string,
    estimated: m[at + 9] as boolean,
  };
}

/** Slots a call takes, op code included. */
export function callLength(op: number): number {
  switch (op) {
    case OP_AUTHORIZE:
      return 3; // op, id, secret
    case OP_RESERVE:
      return 7; // op, id, keyId, the admission's four
    case OP_SETTLE:
      return 15; // op, id, the reservation's three, the settlement's ten
    case OP_RELEASE:
      return 5; // op, id, the reservation's three
    case OP_MARK_USED:
      return 2; // op, keyId
    case OP_OTHER:
      return 3; // op, id, the call
    default:
      throw new Error(`governance channel: unknown op ${String(op)}`);
  }
}

/** Answers: the call's id, a tag, and the tag's slots. */

/** A plain value (a settlement's boolean, undefined, a key record, an issued key). */
export const REPLY_VALUE = 0;
/** A reservation's three fields. */
export const REPLY_RESERVATION = 1;
/** A Pass: the key (its record, or its id when this port was sent this very record before) and the refusal or undefined. */
export const REPLY_PASS = 2;
/** A GatewayError: the call was refused. */
export const REPLY_REFUSAL = 3;
/** An Error's message: the call failed. */
export const REPLY_FAILURE = 4;
/** No call: the key records this port was sent are forgotten (the owner's memory of them was full). */
export const REPLY_FORGET_KEYS = 5;

export function replyLength(tag: number): number {
  switch (tag) {
    case REPLY_RESERVATION:
      return 5;
    case REPLY_PASS:
      return 4;
    case REPLY_FORGET_KEYS:
      return 2;
    default:
      return 3;
  }
}
