import { holdsAt, isPlainStringContent } from '../shared/plain-json-text.ts';

/**
 * Most events of an Anthropic stream are text deltas, and they come in one shape:
 * `{"type":"content_block_delta","index":N,"delta":{"type":"text_delta","text":"..."}}`.
 * Read in that shape, with text that needs no unescaping, one is taken apart with a few string
 * comparisons and a scan of its text instead of a JSON parse. Anything else (other fields, another
 * order, spaces, escapes, a malformed number) is not recognised here and goes to JSON.parse as before,
 * so what is accepted and what it means is exactly what JSON.parse would make of it.
 */
const HEAD = '{"type":"content_block_delta","index":';
const MIDDLE = ',"delta":{"type":"text_delta","text":"';
const TAIL = '"}}';

export interface TextDelta {
  readonly index: number;
  readonly text: string;
}

/** The event's block index and text when `data` is a plain text delta; undefined otherwise. */
export function plainTextDelta(data: string): TextDelta | undefined {
  if (data.length < HEAD.length + MIDDLE.length + TAIL.length || !holdsAt(data, 0, HEAD) || !holdsAt(data, data.length - TAIL.length, TAIL)) return undefined;
  let at = HEAD.length;
  const first = data.charCodeAt(at);
  if (first < 0x30 || first > 0x39) return undefined;
  let index = first - 0x30;
  at++;
  for (let c = data.charCodeAt(at); c >= 0x30 && c <= 0x39; c = data.charCodeAt(++at)) {
    if (index === 0 || at - HEAD.length >= 9) return undefined; // a leading zero (not JSON), or a number past the plain range
    index = index * 10 + (c - 0x30);
  }
  if (!holdsAt(data, at, MIDDLE)) return undefined;
  const start = at + MIDDLE.length;
  const end = data.length - TAIL.length;
  if (end < start || !isPlainStringContent(data, start, end)) return undefined;
  return { index, text: data.slice(start, end) };
}
