// Helpers for the Gemini codec tests: validators, stream helpers and what a round trip preserves.
// The shared stream checks assume SSE with `\n` line ends and a `model` in every request body, so
// the Gemini ones live here; fixture walking, chunking and schema errors come from ../support/.
import type { ValidateFunction } from 'ajv';
import geminiError from '../../../generated/validators/gemini-error.js';
import geminiRequest from '../../../generated/validators/gemini-request.js';
import geminiResponse from '../../../generated/validators/gemini-response.js';
import geminiStreamEvent from '../../../generated/validators/gemini-stream-event.js';
import type { GatewayError, StreamEvent } from '../../../server/ir/index.ts';
import type { ClientContext, RequestOrigin } from '../../../server/protocols/codec.ts';
import { geminiCodec } from '../../../server/protocols/gemini/index.ts';
import { decodeChunks as decodeWith } from '../support/codecs.ts';
import { type ScenarioDir, hasFile, readJson, scenariosIn } from '../support/fixtures.ts';
import { schemaErrors } from '../support/validators.ts';

export const codec = geminiCodec;

export const SCHEMAS: Readonly<Record<'request' | 'response' | 'streamEvent' | 'error', ValidateFunction>> = {
  request: geminiRequest,
  response: geminiResponse,
  streamEvent: geminiStreamEvent,
  error: geminiError,
};

export { schemaErrors } from '../support/validators.ts';
export { byteByByte, splitAt } from '../support/chunking.ts';
export { hasFile, readBytes, readJson } from '../support/fixtures.ts';
export type { ScenarioDir as Scenario } from '../support/fixtures.ts';

export const scenarios = (protocol = 'gemini'): ScenarioDir[] => scenariosIn(protocol);

/** The route a request fixture arrived on: `request.origin.json` if the scenario has one. */
export function originOf(scenario: ScenarioDir): RequestOrigin {
  return hasFile(scenario, 'request.origin.json') ? readJson<RequestOrigin>(scenario, 'request.origin.json') : { pathModel: 'gemini-2.5-flash' };
}

export const decodeChunks = (chunks: Iterable<Uint8Array>): StreamEvent[] => decodeWith(codec.createStreamDecoder(), chunks);

export function encodeEvents(events: readonly StreamEvent[], client: ClientContext = { streamUsage: true }): string {
  const encoder = codec.createStreamEncoder(client);
  return events.map((event) => encoder.encode(event)).join('');
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
