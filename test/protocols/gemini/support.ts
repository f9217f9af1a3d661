// Helpers for the Gemini codec tests. The shared test/protocols/support/ walks openai and anthropic
// only (and assumes SSE with `\n` line ends and a `model` in every request body), so the Gemini
// suite keeps its own: fixtures, validators, stream helpers and what a round trip preserves.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ValidateFunction } from 'ajv';
import geminiError from '../../../generated/validators/gemini-error.js';
import geminiRequest from '../../../generated/validators/gemini-request.js';
import geminiResponse from '../../../generated/validators/gemini-response.js';
import geminiStreamEvent from '../../../generated/validators/gemini-stream-event.js';
import type { GatewayError, StreamEvent } from '../../../server/ir/index.ts';
import type { ClientContext, RequestOrigin } from '../../../server/protocols/codec.ts';
import { geminiCodec } from '../../../server/protocols/gemini/index.ts';

export const codec = geminiCodec;

export const SCHEMAS: Readonly<Record<'request' | 'response' | 'streamEvent' | 'error', ValidateFunction>> = {
  request: geminiRequest,
  response: geminiResponse,
  streamEvent: geminiStreamEvent,
  error: geminiError,
};

export function schemaErrors(validate: ValidateFunction, value: unknown): string[] {
  if (validate(value)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
}

const FIXTURES = fileURLToPath(new URL('../../fixtures/', import.meta.url));

export interface Scenario {
  readonly name: string;
  readonly dir: string;
}

export function scenarios(protocol = 'gemini'): Scenario[] {
  return readdirSync(join(FIXTURES, protocol), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => ({ name: entry.name, dir: join(FIXTURES, protocol, entry.name) }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

export const hasFile = (scenario: Scenario, file: string) => existsSync(join(scenario.dir, file));
export const readJson = <T = unknown>(scenario: Scenario, file: string): T => JSON.parse(readFileSync(join(scenario.dir, file), 'utf8')) as T;
export const readBytes = (scenario: Scenario, file: string): Buffer => readFileSync(join(scenario.dir, file));

/** The route a request fixture arrived on: `request.origin.json` if the scenario has one. */
export function originOf(scenario: Scenario): RequestOrigin {
  return hasFile(scenario, 'request.origin.json') ? readJson<RequestOrigin>(scenario, 'request.origin.json') : { pathModel: 'gemini-2.5-flash' };
}

export function decodeChunks(chunks: Iterable<Uint8Array>): StreamEvent[] {
  const decoder = codec.createStreamDecoder();
  const events: StreamEvent[] = [];
  for (const chunk of chunks) events.push(...decoder.push(chunk));
  events.push(...decoder.end());
  return events;
}

export function encodeEvents(events: readonly StreamEvent[], client: ClientContext = { streamUsage: true }): string {
  const encoder = codec.createStreamEncoder(client);
  return events.map((event) => encoder.encode(event)).join('');
}

export function splitAt(bytes: Uint8Array, offset: number): Uint8Array[] {
  return [bytes.subarray(0, offset), bytes.subarray(offset)];
}

export function byteByByte(bytes: Uint8Array): Uint8Array[] {
  return Array.from({ length: bytes.length }, (_, i) => bytes.subarray(i, i + 1));
}

/** The SSE payloads of a text written with any of the three line ends (a naive reader, not the parser under test). */
export function ssePayloads(text: string): string[] {
  const normal = text.replaceAll('\r\n', '\n').replaceAll('\r', '\n');
  const payloads: string[] = [];
  for (const block of normal.split('\n\n')) {
    if (block === '') continue;
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith('data: ')) data.push(line.slice('data: '.length));
      else if (!line.startsWith(':')) throw new Error(`unexpected SSE line: ${JSON.stringify(line)}`);
    }
    payloads.push(data.join('\n'));
  }
  return payloads;
}

/** Schema problems of an encoded stream: every SSE payload (or array element) must be a valid chunk. */
export function streamProblems(text: string, framing: 'sse' | 'array' = 'sse'): string[] {
  let chunks: unknown[];
  try {
    chunks = framing === 'sse' ? ssePayloads(text).map((p) => JSON.parse(p) as unknown) : (JSON.parse(text) as unknown[]);
  } catch (e) {
    return [`not parseable: ${String(e)}`];
  }
  if (!Array.isArray(chunks) || chunks.length === 0) return ['no chunks'];
  return chunks.flatMap((chunk, i) => schemaErrors(SCHEMAS.streamEvent, chunk).map((e) => `chunk ${i}: ${e}`));
}

/** A stream event as far as a round trip through Gemini's wire keeps it. */
export type SurvivingEvent = StreamEvent | { readonly type: 'error'; readonly error: Partial<GatewayError> };

/**
 * What an encode -> decode round trip keeps of a stream. Gemini has no block boundaries and no
 * usage of its own before an error chunk: the decoder closes the open block and reports the last
 * usage only when the stream is cut, so those two events right before an error are not wire data.
 * An error keeps its kind, status and message; its code becomes Google's status name.
 */
export function survivingStream(events: readonly StreamEvent[]): SurvivingEvent[] {
  const out: SurvivingEvent[] = [];
  const errorAt = events.findIndex((e) => e.type === 'error');
  events.forEach((event, i) => {
    const beforeError = errorAt !== -1 && i < errorAt && events.slice(i + 1, errorAt).every((e) => e.type === 'block_stop' || e.type === 'usage');
    if (beforeError && (event.type === 'block_stop' || event.type === 'usage')) return;
    out.push(event.type === 'error' ? { type: 'error', error: { kind: event.error.kind, status: event.error.status, message: event.error.message } } : event);
  });
  return out;
}
