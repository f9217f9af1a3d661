import type { OpaqueSignature } from '../../ir/index.ts';

/**
 * Gemini's `thoughtSignature` on a function call must come back on that call in the next request
 * (Gemini 3 refuses the turn otherwise), but the OpenAI, Anthropic, Bedrock, Cohere and Responses
 * protocols have no slot for it. Every one of them echoes the tool-call id back, so the signature
 * rides inside the id the client sees:
 *
 *   gts<form>_<n>_<id>_<payload>
 *
 *   <form>     `b`: the signature is canonical base64 and <payload> is the same characters in the
 *              URL-safe alphabet (`+` → `-`, `/` → `_`, `=` padding dropped): no growth;
 *              `u`: anything else, <payload> is the base64url of its UTF-8 bytes.
 *   <n>        the length of <id> in decimal, so no character of the id or payload is ambiguous.
 *   <id>       the call's own id (Gemini's, or the one the gateway derived, see gemini/call-ids.ts).
 *
 * Only `[A-Za-z0-9_-]` is added, so the carrier fits Anthropic's and Bedrock's id pattern whenever
 * the id itself does. Its length is the id's plus the signature's (Gemini signatures are hundreds
 * to thousands of characters): no client SDK limits it, and the gateway takes the carrier apart
 * before any translated request leaves, so an upstream sees the plain id. Only a history replayed
 * on the client's own protocol goes to the upstream byte for byte (passthrough), where OpenAI
 * Chat (40 characters) and Bedrock (64) refuse so long an id.
 */
const CARRIER = /^gts([bu])_(\d{1,4})_/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** The id to show a client whose protocol has no signature slot; `id` itself when there is nothing to carry. */
export function idWithSignature(id: string, signature: OpaqueSignature | undefined): string {
  if (signature === undefined || signature.origin !== 'gemini' || signature.value === '') return id;
  const value = signature.value;
  // Canonical base64 (padded to a multiple of 4) maps character for character and back exactly.
  const canonical = value.length % 4 === 0 && BASE64.test(value);
  const payload = canonical ? unpadded(value).replaceAll('+', '-').replaceAll('/', '_') : Buffer.from(value, 'utf8').toString('base64url');
  return `gts${canonical ? 'b' : 'u'}_${id.length}_${id}_${payload}`;
}

const unpadded = (base64: string) => (base64.endsWith('==') ? base64.slice(0, -2) : base64.endsWith('=') ? base64.slice(0, -1) : base64);

export interface CarriedId {
  readonly id: string;
  readonly signature?: OpaqueSignature;
}

/** Takes a carrier id apart; any other id comes back as it is. Cheap for ids that are not carriers. */
export function splitCarriedId(id: string): CarriedId {
  if (!id.startsWith('gts')) return { id };
  const head = CARRIER.exec(id);
  if (head === null) return { id };
  const start = head[0].length;
  const length = Number(head[2]);
  if (id.length <= start + length + 1 || id[start + length] !== '_') return { id };
  const payload = id.slice(start + length + 1);
  const value = head[1] === 'b' ? fromUrlSafe(payload) : Buffer.from(payload, 'base64url').toString('utf8');
  return { id: id.slice(start, start + length), signature: { origin: 'gemini', value } };
}

/** The plain id of a possibly carrying id (what a tool result's reference should pair with). */
export function plainCallId(id: string): string {
  return id.startsWith('gts') ? splitCarriedId(id).id : id;
}

function fromUrlSafe(payload: string): string {
  const base64 = payload.replaceAll('-', '+').replaceAll('_', '/');
  return base64 + '='.repeat((4 - (base64.length % 4)) % 4);
}
