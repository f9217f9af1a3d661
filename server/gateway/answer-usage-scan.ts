// Usage and finish reason of a same-protocol OpenAI or Anthropic answer, read from its bytes. The
// answer goes to the client untouched; the gateway only needs these two for the request record and
// spend, and a JSON.parse of the whole answer (every message string, every object) was the largest
// self time and a good part of the garbage of a non-stream request. The walk validates the whole
// answer (a document JSON.parse refuses is refused here too) and takes the same values the codec's
// decodeResponse would: the counts go through the protocol's own decodeUsage, the reason through
// its own decodeFinishReason. Whatever the walk cannot vouch for (an escaped member name it would
// read, a duplicate member, a count that is not a plain integer, a shape decodeResponse might
// throw on, tool calls, content capture, another protocol) returns undefined: the caller parses.
import type { FinishReason, ProtocolId, Usage } from '../ir/index.ts';
import { decodeFinishReason as anthropicFinishReason } from '../protocols/anthropic/finish-reason.ts';
import { decodeUsage as anthropicUsage } from '../protocols/anthropic/usage.ts';
import { decodeFinishReason as openaiFinishReason } from '../protocols/openai/finish-reason.ts';
import { decodeUsage as openaiUsage } from '../protocols/openai/usage.ts';
import { JsonCursor } from '../shared/json-cursor.ts';
import type { Exchange } from './gateway-context.ts';

export interface ScannedAnswer {
  readonly usage: Usage | null;
  readonly finishReason: FinishReason;
}

/**
 * A usage object's members the codec reads, each with its slot in `counts`: counts at the top, and
 * objects of counts (`prompt_tokens_details`). Null and absent read alike (decodeUsage takes both as 0).
 */
interface UsageFields {
  readonly counts: readonly string[];
  readonly details: readonly (readonly [name: string, counts: readonly string[]])[];
}

const OPENAI_USAGE: UsageFields = {
  counts: ['prompt_tokens', 'completion_tokens'],
  details: [
    ['prompt_tokens_details', ['cached_tokens', 'cache_write_tokens']],
    ['completion_tokens_details', ['reasoning_tokens']],
  ],
};

const ANTHROPIC_USAGE: UsageFields = {
  counts: ['input_tokens', 'output_tokens', 'cache_read_input_tokens', 'cache_creation_input_tokens'],
  details: [['output_tokens_details', ['thinking_tokens']]],
};

/** The counts of the usage being read, by slot (undefined: absent or null); reused, the walk is synchronous. */
const counts: (number | undefined)[] = [undefined, undefined, undefined, undefined, undefined];

/**
 * Usage of a same-protocol answer without parsing it, when the walk is sure; sets the meter's finish
 * reason as the parse would. Undefined, or null (no usage in the answer): the caller parses.
 */
export function scannedUsage(exchange: Exchange, answer: Buffer): Usage | null | undefined {
  if (exchange.content !== undefined) return undefined; // capture needs the answer's content: parse
  const scanned = scanAnswer(exchange.ingress.codec.id, answer);
  if (scanned === undefined) return undefined;
  exchange.meter.finishReason = scanned.finishReason;
  return scanned.usage;
}

/** What decodeResponse(JSON.parse(answer)) gives as usage and finish reason, or undefined when unsure. */
export function scanAnswer(protocol: ProtocolId, answer: Buffer): ScannedAnswer | undefined {
  if (protocol !== 'openai' && protocol !== 'anthropic') return undefined;
  try {
    const cursor = new JsonCursor(answer);
    const scanned = protocol === 'openai' ? openaiAnswer(cursor) : anthropicAnswer(cursor);
    cursor.end();
    return scanned;
  } catch {
    return undefined; // NotSure, or nesting deeper than the stack (JSON.parse has no such limit)
  }
}

/** A chat.completion: `usage`, and the first choice's finish reason (a refusal wins, as in decodeResponse). */
function openaiAnswer(cursor: JsonCursor): ScannedAnswer {
  let usage: Usage | null = null;
  let sawUsage = false;
  let sawChoices = false;
  let finishRaw: string | null | undefined;
  let refusal = false;
  cursor.openObject();
  for (let first = true; cursor.member(first); first = false) {
    if (cursor.stringIs('usage')) {
      if (sawUsage) cursor.fail();
      sawUsage = true;
      usage = readCounts(cursor, OPENAI_USAGE)
        ? openaiUsage({
            prompt_tokens: counts[0],
            completion_tokens: counts[1],
            prompt_tokens_details: { cached_tokens: counts[2], cache_write_tokens: counts[3] },
            completion_tokens_details: { reasoning_tokens: counts[4] },
          } as Parameters<typeof openaiUsage>[0])
        : null;
    } else if (cursor.stringIs('choices')) {
      if (sawChoices) cursor.fail();
      sawChoices = true;
      cursor.openArray();
      for (let firstChoice = true; cursor.element(firstChoice); firstChoice = false) {
        if (!firstChoice) {
          cursor.skip();
          continue;
        }
        const choice = openaiChoice(cursor);
        finishRaw = choice.finishRaw;
        refusal = choice.refusal;
      }
    } else cursor.skip();
  }
  if (!sawChoices) cursor.fail(); // `choices[0]` of nothing throws in decodeResponse
  return { usage, finishReason: refusal ? 'refusal' : openaiFinishReason(finishRaw).reason };
}

function openaiChoice(cursor: JsonCursor): { finishRaw: string | null | undefined; refusal: boolean } {
  let finishRaw: string | null | undefined;
  let sawFinish = false;
  let sawMessage = false;
  let refusal = false;
  cursor.openObject();
  for (let first = true; cursor.member(first); first = false) {
    if (cursor.stringIs('finish_reason')) {
      if (sawFinish) cursor.fail();
      sawFinish = true;
      finishRaw = stringOrNull(cursor);
    } else if (cursor.stringIs('message')) {
      if (sawMessage) cursor.fail();
      sawMessage = true;
      if (!cursor.null()) refusal = openaiMessageRefuses(cursor);
    } else cursor.skip();
  }
  return { finishRaw, refusal };
}

/** Whether the message carries a refusal (a non-empty string); tool calls are left to the parse. */
function openaiMessageRefuses(cursor: JsonCursor): boolean {
  let refusal = false;
  let sawRefusal = false;
  let sawCalls = false;
  cursor.openObject();
  for (let first = true; cursor.member(first); first = false) {
    if (cursor.stringIs('refusal')) {
      if (sawRefusal) cursor.fail();
      sawRefusal = true;
      if (cursor.peek() === 0x22) {
        cursor.string();
        refusal = cursor.stringEnd > cursor.stringStart;
      } else cursor.skip(); // not a string: not a refusal (decodeResponse checks the type)
    } else if (cursor.stringIs('tool_calls')) {
      if (sawCalls) cursor.fail();
      sawCalls = true;
      // decodeResponse throws on a call that is not a function call: any call goes to the parse.
      if (cursor.null()) continue;
      cursor.openArray();
      if (cursor.element(true)) cursor.fail();
    } else cursor.skip();
  }
  return refusal;
}

/** A Messages response: `usage`, `stop_reason`, and a `content` array of blocks (objects) for decodeResponse to walk. */
function anthropicAnswer(cursor: JsonCursor): ScannedAnswer {
  let usage: Usage | null = null;
  let sawUsage = false;
  let sawContent = false;
  let sawStop = false;
  let stopRaw: string | null | undefined;
  cursor.openObject();
  for (let first = true; cursor.member(first); first = false) {
    if (cursor.stringIs('usage')) {
      if (sawUsage) cursor.fail();
      sawUsage = true;
      usage = readCounts(cursor, ANTHROPIC_USAGE)
        ? anthropicUsage({
            input_tokens: counts[0],
            output_tokens: counts[1],
            cache_read_input_tokens: counts[2],
            cache_creation_input_tokens: counts[3],
            output_tokens_details: { thinking_tokens: counts[4] },
          } as Parameters<typeof anthropicUsage>[0])
        : null;
    } else if (cursor.stringIs('stop_reason')) {
      if (sawStop) cursor.fail();
      sawStop = true;
      stopRaw = stringOrNull(cursor);
    } else if (cursor.stringIs('content')) {
      if (sawContent) cursor.fail();
      sawContent = true;
      cursor.openArray();
      for (let firstBlock = true; cursor.element(firstBlock); firstBlock = false) {
        if (cursor.peek() !== 0x7b) cursor.fail(); // decodeResponse reads `.type` of each block
        cursor.skip();
      }
    } else cursor.skip();
  }
  if (!sawContent) cursor.fail(); // decodeResponse iterates `content`
  return { usage, finishReason: anthropicFinishReason(stopRaw).reason };
}

/** A string member's value (escapes decoded as JSON.parse would), or null; anything else is not sure. */
function stringOrNull(cursor: JsonCursor): string | null {
  if (cursor.null()) return null;
  if (cursor.peek() !== 0x22) cursor.fail();
  cursor.string();
  const { bytes, stringStart, stringEnd } = cursor;
  if (cursor.stringEscaped) return JSON.parse(bytes.toString('utf8', stringStart - 1, stringEnd + 1)) as string;
  return bytes.toString('utf8', stringStart, stringEnd);
}

/**
 * The usage member into `counts`: false for null (no usage), true for an object, of which only the
 * fields' members are read (counts or null; objects of counts, or null). Other values, a duplicate
 * member or a count that is not a plain integer are not sure.
 */
function readCounts(cursor: JsonCursor, fields: UsageFields): boolean {
  if (cursor.null()) return false;
  counts.fill(undefined);
  let seen = 0; // a bit per slot, and per details object after them
  cursor.openObject();
  for (let first = true; cursor.member(first); first = false) {
    const slot = slotOf(cursor, fields.counts, 0);
    if (slot !== -1) {
      if (seen & (1 << slot)) cursor.fail();
      seen |= 1 << slot;
      counts[slot] = count(cursor);
      continue;
    }
    let base = fields.counts.length;
    let matched = false;
    for (let d = 0; d < fields.details.length; d++) {
      const [name, inner] = fields.details[d]!;
      if (!cursor.stringIs(name)) {
        base += inner.length;
        continue;
      }
      matched = true;
      const bit = 1 << (16 + d);
      if (seen & bit) cursor.fail();
      seen |= bit;
      if (cursor.null()) break;
      cursor.openObject();
      for (let firstInner = true; cursor.member(firstInner); firstInner = false) {
        const innerSlot = slotOf(cursor, inner, base);
        if (innerSlot === -1) cursor.skip();
        else {
          if (seen & (1 << innerSlot)) cursor.fail();
          seen |= 1 << innerSlot;
          counts[innerSlot] = count(cursor);
        }
      }
      break;
    }
    if (!matched) cursor.skip();
  }
  return true;
}

/** The slot of the member just read among `names` (slots from `base`), or -1. */
function slotOf(cursor: JsonCursor, names: readonly string[], base: number): number {
  for (let i = 0; i < names.length; i++) if (cursor.stringIs(names[i]!)) return base + i;
  return -1;
}

/** A token count: a plain integer, or null (undefined here: decodeUsage reads null and absent as 0). */
function count(cursor: JsonCursor): number | undefined {
  if (cursor.null()) return undefined;
  const b = cursor.peek();
  if (b < 0x30 || b > 0x39) cursor.fail(); // a string, boolean, object or negative count: the parse decides
  const value = cursor.number();
  if (Number.isNaN(value)) cursor.fail();
  return value;
}
