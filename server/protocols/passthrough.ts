// The same-protocol fast path: the client's request bytes go upstream with only the top-level
// `model` value replaced. No parse-and-reserialise, so key order, whitespace, number formatting
// and every field this gateway has never heard of arrive exactly as the client sent them.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * Returns `body` with the value bytes of the top-level member `key` replaced by the JSON string
 * `value`; a body without that member comes back as it is (never inserted: the protocols whose
 * body names no model, Gemini and Bedrock, must reach the provider without one). `body` must be a
 * JSON object (it has been parsed and validated before this runs).
 */
export function replaceTopLevelString(body: Buffer, key: string, value: string): Buffer {
  const span = findTopLevelValue(body, key);
  if (span === undefined) return body;
  // One new buffer, written in place: no intermediate slices or encoded copy.
  const encoded = JSON.stringify(value);
  const length = Buffer.byteLength(encoded);
  const out = Buffer.allocUnsafe(span.start + length + body.length - span.end);
  body.copy(out, 0, 0, span.start);
  out.write(encoded, span.start);
  body.copy(out, span.start + length, span.end);
  return out;
}

/**
 * Returns `body` with the number member `path.key` set to `value`: at the top level, or inside the
 * top-level object `path.parent` (created, holding only it, when absent or null). The same
 * replace-or-insert as setMember; everything else keeps its bytes.
 */
export function setMemberNumber(body: Buffer, path: { readonly parent?: string; readonly key: string }, value: number): Buffer {
  const encoded = Buffer.from(String(value));
  if (path.parent === undefined) return setMember(body, path.key, encoded);
  const span = findTopLevelValue(body, path.parent);
  if (span === undefined || body[span.start] !== 0x7b) return setMember(body, path.parent, Buffer.from(`{${JSON.stringify(path.key)}:${value}}`));
  const inner = setMember(body.subarray(span.start, span.end), path.key, encoded);
  return Buffer.concat([body.subarray(0, span.start), inner, body.subarray(span.end)]);
}

/** `object` (a JSON object's bytes) with member `key`'s value bytes replaced, or the member inserted first. */
function setMember(object: Buffer, key: string, encoded: Buffer): Buffer {
  return withMemberValue(object, key, encoded, findTopLevelValue(object, key));
}

/**
 * `setMember` for a caller that has already looked the member up (`span`, from findTopLevelValue
 * on the same bytes; undefined when absent): the body is not scanned again.
 */
export function withMemberValue(object: Buffer, key: string, encoded: Buffer, span: { readonly start: number; readonly end: number } | undefined): Buffer {
  if (span !== undefined) return Buffer.concat([object.subarray(0, span.start), encoded, object.subarray(span.end)]);
  const open = object.indexOf(0x7b); // '{'
  const member = Buffer.concat([Buffer.from(`${JSON.stringify(key)}:`), encoded]);
  const rest = object.subarray(open + 1);
  const isEmpty = object[skipWhitespace(object, open + 1)] === 0x7d; // '}'
  return Buffer.concat([object.subarray(0, open + 1), member, isEmpty ? rest : Buffer.concat([Buffer.from(','), rest])]);
}

/** Byte span of the value of top-level member `key`, or undefined. Later duplicates win, as in JSON.parse. */
export function findTopLevelValue(body: Buffer, key: string): { start: number; end: number } | undefined {
  let found: { start: number; end: number } | undefined;
  let i = skipWhitespace(body, 0);
  if (body[i] !== 0x7b) return undefined;
  i = skipWhitespace(body, i + 1);
  if (body[i] === 0x7d) return undefined;
  while (i < body.length) {
    const keyStart = i;
    const keyEnd = skipString(body, i);
    i = skipWhitespace(body, keyEnd);
    i = skipWhitespace(body, i + 1); // ':'
    const valueStart = i;
    const valueEnd = skipValue(body, i);
    if (keyMatches(body, keyStart, keyEnd, key)) found = { start: valueStart, end: valueEnd };
    i = skipWhitespace(body, valueEnd);
    if (body[i] !== 0x2c) break; // ','
    i = skipWhitespace(body, i + 1);
  }
  return found;
}

function keyMatches(body: Buffer, start: number, end: number, key: string): boolean {
  // Compared in place: no copy or string per member (this runs on every member of every request).
  let plain = true;
  for (let i = start + 1; i < end - 1; i++) if (body[i] === BACKSLASH) plain = false;
  if (!plain) return JSON.parse(body.toString('utf8', start, end)) === key;
  if (end - start !== key.length + 2) return false;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if (c >= 0x80) return body.toString('utf8', start + 1, end - 1) === key; // a non-ASCII key: as decoded
    if (body[start + 1 + i] !== c) return false;
  }
  return true;
}

function skipWhitespace(body: Buffer, i: number): number {
  while (i < body.length) {
    const c = body[i];
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) break;
    i++;
  }
  return i;
}

/** `i` is at an opening quote; returns the index just past the closing quote. */
function skipString(body: Buffer, i: number): number {
  i++;
  while (i < body.length) {
    const c = body[i];
    if (c === BACKSLASH) i += 2;
    else if (c === QUOTE) return i + 1;
    else i++;
  }
  return i;
}

function skipValue(body: Buffer, i: number): number {
  const c = body[i];
  if (c === QUOTE) return skipString(body, i);
  if (c === 0x7b || c === 0x5b) {
    let depth = 0;
    while (i < body.length) {
      const d = body[i];
      if (d === QUOTE) {
        i = skipString(body, i);
        continue;
      }
      if (d === 0x7b || d === 0x5b) depth++;
      else if (d === 0x7d || d === 0x5d) {
        depth--;
        if (depth === 0) return i + 1;
      }
      i++;
    }
    return i;
  }
  while (i < body.length) {
    const d = body[i];
    if (d === 0x2c || d === 0x7d || d === 0x20 || d === 0x0a || d === 0x0d || d === 0x09) break;
    i++;
  }
  return i;
}
