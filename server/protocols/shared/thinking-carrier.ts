import type { ProtocolId, ReasoningBlock, StreamBlockStart, StreamDelta } from '../../ir/index.ts';

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
  if (block.redacted !== undefined) return carriedRedacted(block.origin, block.redacted);
  if (block.signature !== undefined) return carried(block.origin, { t: block.text, s: block.signature });
  return undefined;
}

/** The carrier for thinking streamed as text and signature pieces, once the block is complete. */
export function carriedThinking(origin: ProtocolId, text: string, signature: string): string {
  return carried(origin, { t: text, s: signature });
}

/** The carrier for redacted (encrypted) thinking, which a stream gives whole at its block's start. */
export function carriedRedacted(origin: ProtocolId, data: string): string {
  return carried(origin, { r: data });
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

/**
 * What an Anthropic or Bedrock stream encoder does with the sibling's thinking: its text streams as
 * it comes, its signature is held and sent whole, as the carrier, when the block stops (the carrier
 * needs the complete text and signature).
 */
export class SiblingThinkingStream {
  private readonly open = new Map<number, { text: string; signature: string }>();
  private readonly sibling: 'anthropic' | 'bedrock';

  constructor(own: 'anthropic' | 'bedrock') {
    this.sibling = own === 'anthropic' ? 'bedrock' : 'anthropic';
  }

  /** True when the block is the sibling's thinking (carried, not dropped as foreign). */
  start(index: number, block: StreamBlockStart): boolean {
    if ((block.type !== 'reasoning' && block.type !== 'redacted_reasoning') || block.origin !== this.sibling) return false;
    if (block.type === 'reasoning') this.open.set(index, { text: '', signature: '' });
    return true;
  }

  /** The redacted data to send for a sibling's redacted block: its carrier. */
  redacted(data: string): string {
    return carriedRedacted(this.sibling, data);
  }

  /** True when the delta is held back (a signature piece); reasoning text is noted and still sent. */
  hold(index: number, delta: StreamDelta): boolean {
    const block = this.open.get(index);
    if (block === undefined) return false;
    if (delta.type === 'signature') {
      block.signature += delta.signature;
      return true;
    }
    if (delta.type === 'reasoning') block.text += delta.text;
    return false;
  }

  /** The carrier to send as the stopping block's signature; undefined when it is not a signed sibling block. */
  stop(index: number): string | undefined {
    const block = this.open.get(index);
    this.open.delete(index);
    return block === undefined || block.signature === '' ? undefined : carriedThinking(this.sibling, block.text, block.signature);
  }
}
