import type { ProtocolId, ReasoningBlock } from '../../ir/index.ts';

/**
 * Claude refuses a tool-loop follow-up with thinking on unless its signed thinking block comes
 * back first. A Responses client (Codex with `store: false`) sends every reasoning item back with
 * its `encrypted_content`, so Claude's thinking rides there, as opaque to the client as OpenAI's:
 *
 *   gwthink_<origin>_<payload>     <payload>: base64url of the JSON {t: text, s: signature} or {r: redacted data}
 *
 * The Responses decoder turns such an item back into the Anthropic- (or Bedrock-) issued block.
 * Only these two origins are carried: theirs are the only signed thinking another client cannot
 * keep. Like any encrypted reasoning, it means nothing to OpenAI: a history carrying it, replayed
 * byte for byte to a Responses lane (passthrough), is refused there.
 */
const PREFIX = 'gwthink_';
const CARRIED: ReadonlySet<ProtocolId> = new Set(['anthropic', 'bedrock']);

/** Reasoning whose proof can be carried, with that proof (`undefined` for anything else). */
export function carriableThinking(block: ReasoningBlock): string | undefined {
  if (block.origin === undefined || !CARRIED.has(block.origin)) return undefined;
  if (block.redacted !== undefined) return carried(block.origin, { r: block.redacted });
  if (block.signature !== undefined) return carried(block.origin, { t: block.text, s: block.signature });
  return undefined;
}

/** The carrier for thinking streamed as text and signature pieces, once the block is complete. */
export function carriedThinking(origin: ProtocolId, text: string, signature: string): string {
  return carried(origin, { t: text, s: signature });
}

export function canCarryThinking(origin: ProtocolId | undefined): boolean {
  return origin !== undefined && CARRIED.has(origin);
}

function carried(origin: ProtocolId, payload: { t?: string; s?: string; r?: string }): string {
  return `${PREFIX}${origin}_${Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url')}`;
}

/** The reasoning block an encrypted_content carries, or undefined when it is OpenAI's own. */
export function thinkingFromCarrier(encrypted: string): ReasoningBlock | undefined {
  if (!encrypted.startsWith(PREFIX)) return undefined;
  const rest = encrypted.slice(PREFIX.length);
  const cut = rest.indexOf('_');
  const origin = rest.slice(0, cut) as ProtocolId;
  if (cut <= 0 || !CARRIED.has(origin)) return undefined;
  let payload: { t?: unknown; s?: unknown; r?: unknown };
  try {
    payload = JSON.parse(Buffer.from(rest.slice(cut + 1), 'base64url').toString('utf8')) as typeof payload;
  } catch {
    return undefined;
  }
  if (typeof payload.r === 'string') return { type: 'reasoning', text: '', redacted: payload.r, origin };
  if (typeof payload.t === 'string' && typeof payload.s === 'string') return { type: 'reasoning', text: payload.t, signature: payload.s, origin };
  return undefined;
}

/**
 * Claude answers through two protocols whose thinking blocks look alike but whose signatures only
 * the issuer verifies: an Anthropic client on a Claude-on-Bedrock lane (or the reverse) gets the
 * other's thinking with the carrier as its signature (or redacted data), and sends it back there.
 */
export function siblingThinking(block: ReasoningBlock, own: 'anthropic' | 'bedrock'): string | undefined {
  return block.origin === (own === 'anthropic' ? 'bedrock' : 'anthropic') ? carriableThinking(block) : undefined;
}

export function isSiblingOrigin(origin: ProtocolId | undefined, own: 'anthropic' | 'bedrock'): boolean {
  return origin === (own === 'anthropic' ? 'bedrock' : 'anthropic');
}
