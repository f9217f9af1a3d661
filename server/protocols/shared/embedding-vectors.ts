import type { EmbeddingsRequest } from '../../ir/index.ts';
import type { TranslationWarning } from '../codec.ts';
import { invalidField, unsupportedField } from './invalid-field.ts';
import { dropped } from './warnings.ts';

/** A vector as base64 of its little-endian float32 values, as OpenAI encodes `encoding_format: base64`. */
export function vectorToBase64(vector: readonly number[]): string {
  const bytes = Buffer.allocUnsafe(vector.length * 4);
  for (let i = 0; i < vector.length; i++) bytes.writeFloatLE(vector[i]!, i * 4);
  return bytes.toString('base64');
}

/** The numbers of a base64 little-endian float32 vector. */
export function vectorFromBase64(text: string): number[] {
  const bytes = Buffer.from(text, 'base64');
  const out = new Array<number>(bytes.length >>> 2);
  for (let i = 0; i < out.length; i++) out[i] = bytes.readFloatLE(i * 4);
  return out;
}

/** An upstream's vector, numbers or base64, checked: a malformed one is the upstream's fault (502). */
export function vectorOf(value: unknown, where: string): number[] {
  if (typeof value === 'string') return vectorFromBase64(value);
  if (Array.isArray(value) && value.every((v) => typeof v === 'number')) return value as number[];
  throw new UpstreamShapeError(`${where} is not a vector`);
}

/** An upstream answer that is not the protocol's embeddings shape. */
export class UpstreamShapeError extends Error {}

/** A request's list of texts, checked: a non-empty array of non-empty strings, at most `max`. */
export function textList(value: unknown, path: string, max: number): string[] {
  if (!Array.isArray(value)) throw invalidField(path, 'must be an array of strings');
  if (value.length === 0) throw invalidField(path, 'must hold at least one text');
  if (value.length > max) throw invalidField(path, `holds ${value.length} texts; at most ${max} are accepted in one request`);
  value.forEach((text, i) => {
    if (typeof text !== 'string') throw invalidField(`${path}[${i}]`, 'must be a string');
    if (text === '') throw invalidField(`${path}[${i}]`, 'must not be empty');
  });
  return value as string[];
}

/** An optional positive integer field (dimensions), checked. */
export function optionalDimensions(value: unknown, path: string): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) throw invalidField(path, 'must be a positive integer');
  return value;
}

/** Bytes at an answer's end that usually hold its whole usage member (read first, before the rest). */
const USAGE_TAIL = 4096;

/**
 * The integer after the last `"key":` in a JSON answer (usage sits at the end of an embeddings
 * answer), read without parsing megabytes of vectors; undefined when absent. An answer in pieces
 * (as it was read) is searched in its last USAGE_TAIL bytes first: a hit there is the last one in
 * the whole answer, and its digits run at most to the end. Only without one is it joined.
 */
export function lastIntegerMember(body: Buffer | readonly Buffer[], key: string): number | undefined {
  if (Buffer.isBuffer(body)) return integerAfterLast(body, key);
  if (body.length === 1) return integerAfterLast(body[0]!, key);
  const tail = tailOf(body, USAGE_TAIL);
  const found = integerAfterLast(tail.bytes, key);
  return found !== undefined || tail.whole ? found : integerAfterLast(Buffer.concat(body), key);
}

function integerAfterLast(body: Buffer, key: string): number | undefined {
  const at = body.lastIndexOf(`"${key}"`);
  if (at < 0) return undefined;
  let i = at + key.length + 2;
  while (i < body.length && (body[i] === 0x20 || body[i] === 0x3a || body[i] === 0x0a || body[i] === 0x0d || body[i] === 0x09)) i++;
  let n = 0;
  let digits = 0;
  while (i < body.length && body[i]! >= 0x30 && body[i]! <= 0x39) {
    n = n * 10 + body[i]! - 0x30;
    i++;
    digits++;
  }
  return digits === 0 ? undefined : n;
}

/** The last `size` bytes of a body in pieces (the last piece itself when it is long enough), and whether that is all of it. */
function tailOf(pieces: readonly Buffer[], size: number): { bytes: Buffer; whole: boolean } {
  const last = pieces[pieces.length - 1]!;
  if (last.length >= size) return { bytes: last, whole: false };
  let from = pieces.length - 1;
  let length = last.length;
  while (from > 0 && length < size) length += pieces[--from]!.length;
  return { bytes: Buffer.concat(pieces.slice(from), length), whole: from === 0 };
}

/** Inputs the IR does not carry (token ids, images): refused by every lane of another protocol. */
export function refuseUntranslatable(request: EmbeddingsRequest, target: string): void {
  const { untranslatable } = request;
  if (untranslatable !== undefined) throw unsupportedField(untranslatable.field, target, untranslatable.why);
}

/** Request fields the target has no slot for and drops (the vectors come back all the same). */
export function droppedEmbeddingFields(request: EmbeddingsRequest, target: { truncate?: boolean; normalize?: boolean }): TranslationWarning[] {
  const out: TranslationWarning[] = [];
  if (request.truncate !== undefined && target.truncate !== true) out.push(dropped('truncate', 'truncate'));
  if (request.normalize === false && target.normalize !== true) out.push(dropped('normalize', 'normalize: false (the upstream returns normalized vectors)'));
  return out;
}
