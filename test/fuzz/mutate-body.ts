// Mutations of a request body: structural ones on the parsed JSON (a value's type swapped, nulls,
// extreme numbers, deep nesting, long or odd strings, fields removed or added, keys duplicated),
// then, sometimes, byte-level ones on the text (truncation, invalid UTF-8, a BOM, trailing junk).
// Each mutation appends a short note, so a failing case says what was done to it.
import type { Prng } from './prng.ts';

/** A JSON fragment written as is (what JSON.stringify cannot produce: duplicate keys, 1e999, depth 10^5). */
class RawJson {
  readonly text: string;
  constructor(text: string) {
    this.text = text;
  }
}

type Json = null | boolean | number | string | RawJson | Json[] | { [key: string]: Json };

/** Serialises with RawJson fragments inlined. Recursion depth is the seed's own (RawJson nests without recursing). */
function toText(value: Json): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map(toText).join(',')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.entries(value)
      .map(([k, v]) => `${JSON.stringify(k)}:${toText(v)}`)
      .join(',')}}`;
  return JSON.stringify(value) ?? 'null';
}

/**
 * The length toText() would give, counted without building it, stopping once past `limit`: a
 * mutation may put one subtree in several places (aliases), so the text can grow past what a string
 * can hold while the tree stays small, and toText() would then throw RangeError.
 */
function textLengthUpTo(value: Json, limit: number): number {
  let length = 0;
  const walk = (node: Json): void => {
    if (length > limit) return;
    if (node instanceof RawJson) length += node.text.length;
    else if (Array.isArray(node)) {
      length += 2 + Math.max(0, node.length - 1);
      for (const child of node) walk(child);
    } else if (node !== null && typeof node === 'object') {
      const entries = Object.entries(node);
      length += 2 + Math.max(0, entries.length - 1);
      for (const [key, child] of entries) {
        length += JSON.stringify(key).length + 1;
        walk(child);
      }
    } else length += (JSON.stringify(node) ?? 'null').length;
  };
  walk(value);
  return length;
}

interface Slot {
  readonly parent: Json[] | { [key: string]: Json };
  readonly key: string | number;
  readonly path: string;
}

/** Every place a value sits in the tree (the root excluded), depth first, at most `limit`. */
function slotsOf(root: Json, limit = 2000): Slot[] {
  const out: Slot[] = [];
  const walk = (node: Json, path: string) => {
    if (out.length >= limit || node === null || typeof node !== 'object' || node instanceof RawJson) return;
    if (Array.isArray(node)) {
      node.forEach((child, i) => {
        out.push({ parent: node, key: i, path: `${path}[${i}]` });
        walk(child, `${path}[${i}]`);
      });
    } else {
      for (const [k, child] of Object.entries(node)) {
        out.push({ parent: node, key: k, path: path === '' ? k : `${path}.${k}` });
        walk(child, path === '' ? k : `${path}.${k}`);
      }
    }
  };
  walk(root, '');
  return out;
}

/** Bodies stay below this (the fuzz gateway's max_request_bytes is 4 MiB, so some pass it for a 413). */
const MAX_BODY_CHARS = 5 * 1024 * 1024;

const get = (slot: Slot): Json => (slot.parent as Record<string | number, Json>)[slot.key] as Json;
const set = (slot: Slot, value: Json) => void ((slot.parent as Record<string | number, Json>)[slot.key] = value);

const EXTREME_NUMBERS: readonly Json[] = [
  -1,
  0,
  -0.5,
  1.5,
  2 ** 31,
  -(2 ** 31) - 1,
  2 ** 53 + 2,
  -(2 ** 53),
  1e21,
  -1e21,
  1e308,
  -1e308,
  Number.MIN_VALUE,
  new RawJson('1e999'),
  new RawJson('-1e999'),
  new RawJson('123456789012345678901234567890'),
  new RawJson('1E+400'),
  new RawJson('-0'),
];

// biome-ignore lint/suspicious/noTemplateCurlyInString: a literal injection probe (HTML, a JNDI lookup, printf and template markers), not a template
const INJECTION_PROBE = '<script>alert(1)</script>${jndi:ldap://x}%s%n{{7*7}}';

/** Strings that have broken parsers, loggers and byte counters before. */
function oddString(rng: Prng): Json {
  const kind = rng.int(9);
  const size = rng.pick([1_000, 64_000, 600_000]);
  switch (kind) {
    case 0:
      return 'x'.repeat(size);
    case 1:
      return '\u{1F600}'.repeat(size / 4); // astral characters: UTF-16 length differs from code points and bytes
    case 2:
      return new RawJson(`"${'\\ud800'.repeat(rng.pick([1, 3, 1000]))}"`); // lone surrogates (valid JSON, invalid Unicode)
    case 3:
      return '\u0000\u0001\u001f\u007f\u2028\u2029';
    case 4:
      return '';
    case 5:
      return '\r\n\r\ndata: {"injected":true}\n\nevent: error\n\n'; // SSE framing inside content
    case 6:
      return INJECTION_PROBE;
    case 7:
      return 'é'.repeat(size / 2);
    default:
      return new RawJson(`"${'\\\\'.repeat(size / 8)}\\u0041"`);
  }
}

/** depth levels of one container kind, built as text (JSON.stringify would recurse that deep). */
function deepNesting(rng: Prng): { value: Json; note: string } {
  const depth = rng.pick([64, 1_000, 10_000, 100_000]);
  const kind = rng.int(3);
  const text =
    kind === 0
      ? '['.repeat(depth) + ']'.repeat(depth)
      : kind === 1
        ? '{"a":'.repeat(depth) + '1' + '}'.repeat(depth)
        : '[{"type":"text","text":'.repeat(depth) + '"x"' + '}]'.repeat(depth);
  return { value: new RawJson(text), note: `nesting ${depth} (${['arrays', 'objects', 'content blocks'][kind]})` };
}

function randomScalar(rng: Prng): Json {
  return rng.pick<Json>([null, true, false, 0, -1, 1e308, '', 'x', [], {}, [null], { type: 'text' }, oddString(rng)]);
}

/** A value of another JSON type than `current`. */
function typeSwap(current: Json, rng: Prng): Json {
  const options: Json[] = [42, -3.5, 'swapped', true, false, [], [current], {}, { value: current }];
  const others = options.filter((o) => typeof o !== typeof current || Array.isArray(o) !== Array.isArray(current));
  return rng.pick(others);
}

const UNKNOWN_FIELDS = [
  '__proto__',
  'constructor',
  'prototype',
  'x_unknown',
  'toString',
  'hasOwnProperty',
  '',
  ' ',
  'stream_options',
  'metadata',
  'n',
  'tools',
  'cache_control',
];

/**
 * One mutation that keeps the value's JSON type (numbers stay numbers, strings strings), so the
 * request tends to pass schema validation and reach decoding, translation, admission and the upstream.
 */
function mutateKeepingType(root: Json, rng: Prng, notes: string[]): Json {
  const slots = slotsOf(root);
  if (slots.length === 0) return root;
  const slot = rng.pick(slots);
  const value = get(slot);
  if (typeof value === 'number') {
    const n = rng.pick(EXTREME_NUMBERS);
    set(slot, n);
    notes.push(`number ${toText(n)} at ${slot.path}`);
  } else if (typeof value === 'string') {
    const s = oddString(rng);
    set(slot, s);
    notes.push(`odd string (${toText(s).length} chars) at ${slot.path}`);
  } else if (typeof value === 'boolean') {
    set(slot, !value);
    notes.push(`flipped ${slot.path}`);
  } else if (Array.isArray(value) && value.length > 0) {
    const element = value[rng.int(value.length)]!;
    const copies = Math.min(rng.pick([1, 20, 1_000]), Math.floor(MAX_BODY_CHARS / 2 / Math.max(1, toText(element).length)));
    value.push(...Array.from({ length: copies }, () => structuredClone(element)));
    notes.push(`array ${slot.path} grown by ${copies}`);
  } else if (value !== null && typeof value === 'object' && !(value instanceof RawJson) && !Array.isArray(value)) {
    const key = rng.pick(UNKNOWN_FIELDS);
    Object.defineProperty(value, key, { value: randomScalar(rng), enumerable: true, writable: true, configurable: true });
    notes.push(`extra field "${key}" in ${slot.path}`);
  }
  return root;
}

/** One structural mutation on a random place; returns the new root (the root itself may be replaced). */
function mutateTree(root: Json, rng: Prng, notes: string[]): Json {
  const slots = slotsOf(root);
  if (slots.length === 0 || rng.chance(0.04)) {
    const replacement = rng.pick<Json>([null, [], 'a string', 12, true, [root], new RawJson('{}'), new RawJson('{"model":"m-openai"}')]);
    notes.push(`root replaced by ${toText(replacement).slice(0, 40)}`);
    return replacement;
  }
  const slot = rng.pick(slots);
  const at = slot.path;
  switch (rng.int(10)) {
    case 0:
      set(slot, typeSwap(get(slot), rng));
      notes.push(`type swap at ${at}`);
      break;
    case 1:
      set(slot, null);
      notes.push(`null at ${at}`);
      break;
    case 2: {
      const n = rng.pick(EXTREME_NUMBERS);
      set(slot, n);
      notes.push(`number ${toText(n)} at ${at}`);
      break;
    }
    case 3: {
      const nested = deepNesting(rng);
      set(slot, nested.value);
      notes.push(`${nested.note} at ${at}`);
      break;
    }
    case 4: {
      const s = oddString(rng);
      set(slot, s);
      notes.push(`odd string (${toText(s).length} chars) at ${at}`);
      break;
    }
    case 5: {
      if (Array.isArray(slot.parent)) slot.parent.splice(slot.key as number, 1);
      else delete slot.parent[slot.key as string];
      notes.push(`removed ${at}`);
      break;
    }
    case 6: {
      const target = get(slot);
      if (target !== null && typeof target === 'object' && !(target instanceof RawJson) && !Array.isArray(target)) {
        const key = rng.pick(UNKNOWN_FIELDS);
        Object.defineProperty(target, key, { value: randomScalar(rng), enumerable: true, writable: true, configurable: true });
        notes.push(`extra field "${key}" in ${at}`);
      } else if (Array.isArray(target)) {
        const element = target[0] ?? null;
        // Bounded so the body stays a few MB whatever the element (a long string, a deep nest).
        const copies = Math.min(rng.pick([2, 50, 5_000]), Math.floor(MAX_BODY_CHARS / 2 / Math.max(1, toText(element).length)));
        target.push(...Array.from({ length: copies }, () => element));
        notes.push(`array ${at} grown by ${copies}`);
      } else {
        set(slot, [target, target]);
        notes.push(`wrapped ${at} in an array`);
      }
      break;
    }
    case 7: {
      // Duplicate keys: the object written with one key twice, the later value a different type.
      const target = get(slot);
      if (target !== null && typeof target === 'object' && !(target instanceof RawJson) && !Array.isArray(target) && Object.keys(target).length > 0) {
        const key = rng.pick(Object.keys(target));
        const body = toText(target).slice(0, -1);
        set(slot, new RawJson(`${body},${JSON.stringify(key)}:${toText(typeSwap(target[key] as Json, rng))}}`));
        notes.push(`duplicate key ${at}.${key}`);
      } else {
        set(slot, typeSwap(target, rng));
        notes.push(`type swap at ${at}`);
      }
      break;
    }
    case 8: {
      const target = get(slot);
      if (Array.isArray(target)) {
        target.length = 0;
        notes.push(`emptied ${at}`);
      } else if (target !== null && typeof target === 'object' && !(target instanceof RawJson)) {
        set(slot, {});
        notes.push(`emptied ${at}`);
      } else {
        set(slot, rng.pick<Json>(['', 0, false]));
        notes.push(`zeroed ${at}`);
      }
      break;
    }
    default:
      set(slot, randomScalar(rng));
      notes.push(`random value at ${at}`);
  }
  return root;
}

/** One byte-level mutation on the serialised body. */
function mutateBytes(bytes: Buffer, rng: Prng, notes: string[]): Buffer {
  switch (rng.int(7)) {
    case 0: {
      const at = rng.int(bytes.length + 1);
      notes.push(`truncated at byte ${at} of ${bytes.length}`);
      return bytes.subarray(0, at);
    }
    case 1: {
      const at = rng.int(bytes.length + 1);
      const junk = Buffer.from(rng.pick([[0xff], [0xc3], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xe2, 0x82], [0x80, 0x80]]));
      notes.push(`invalid UTF-8 ${junk.toString('hex')} at byte ${at}`);
      return Buffer.concat([bytes.subarray(0, at), junk, bytes.subarray(at)]);
    }
    case 2: {
      // Invalid UTF-8 inside a string value: after the first quote past a random point.
      const quote = bytes.indexOf(0x22, rng.int(bytes.length));
      if (quote < 0) return bytes;
      notes.push(`invalid UTF-8 inside a string at byte ${quote + 1}`);
      return Buffer.concat([bytes.subarray(0, quote + 1), Buffer.from([0xfe, 0xc0, 0xaf]), bytes.subarray(quote + 1)]);
    }
    case 3:
      notes.push('UTF-8 BOM prefix');
      return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes]);
    case 4:
      notes.push('trailing junk');
      return Buffer.concat([bytes, Buffer.from(rng.pick([' {}', '\u0000', ',', '}}}]]]', '\n{"model":"x"}']))]);
    case 5: {
      const copy = Buffer.from(bytes);
      const at = rng.int(Math.max(1, copy.length));
      if (copy.length > 0) copy[at] = rng.int(256);
      notes.push(`byte ${at} set at random`);
      return copy;
    }
    default:
      notes.push('empty body');
      return Buffer.alloc(0);
  }
}

/**
 * The seed with 1 to 3 mutations (in two cases of five all keeping JSON types, so the request gets
 * past validation) and, one case in five, a byte-level one.
 */
export function mutateBody(seed: unknown, rng: Prng, notes: string[]): Buffer {
  let tree = structuredClone(seed) as Json;
  const rounds = 1 + rng.int(3);
  const mutate = rng.chance(0.4) ? mutateKeepingType : mutateTree;
  let text = '';
  for (let i = 0; i < rounds; i++) {
    const before = text;
    tree = mutate(tree, rng, notes);
    const tooLarge = textLengthUpTo(tree, MAX_BODY_CHARS) > MAX_BODY_CHARS;
    if (!tooLarge) text = toText(tree);
    if (tooLarge) {
      // Mutations compounded past the bound: keep the body as it was before this one.
      notes.push('(last mutation undone: body too large)');
      text = before || toText(seed as Json);
      break;
    }
  }
  let bytes: Buffer = Buffer.from(text, 'utf8');
  if (rng.chance(0.2)) bytes = mutateBytes(bytes, rng, notes);
  return bytes;
}

/** The seed unchanged, as the gateway would get it from a well-behaved client. */
export function serialiseBody(seed: unknown): Buffer {
  return Buffer.from(JSON.stringify(seed), 'utf8');
}
