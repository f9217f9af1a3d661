import type { ClientContext, TranslationWarning } from '../codec.ts';

/** Longest warnings list written in a header or a stream note; longer lists end with `...`. */
const MAX_WARNINGS_TEXT = 4096;

/**
 * The warnings as one line, `dropped=top_k, reshaped=messages[3]` (kind `=` path): what
 * `x-gateway-warnings` carries and what a stream's note carries. Printable ASCII only (paths come
 * from client JSON keys), and never the text `data:`, which Cohere's SDK finds anywhere in a line.
 */
export function warningsText(warnings: readonly TranslationWarning[]): string {
  let value = warnings.map((w) => `${w.kind}=${w.path}`).join(', ');
  if (value.length > MAX_WARNINGS_TEXT) value = `${value.slice(0, MAX_WARNINGS_TEXT)}...`;
  return value.replace(/[^\x20-\x7e]/g, '?').replaceAll('data:', 'data?');
}

/**
 * Every warning of a streamed answer: the request's (already in the header) and the encoder's own.
 * None unless the client context carries a warnings list: the gateway's hop asks for the note, an
 * encoder used on its own (codec tests, the same-protocol error path) writes the bare protocol.
 */
export function streamWarnings(client: ClientContext, own: readonly TranslationWarning[]): readonly TranslationWarning[] {
  const early = client.warnings;
  if (early === undefined) return [];
  return early.length === 0 ? own : own.length === 0 ? early : [...early, ...own];
}

/**
 * An SSE comment block listing a stream's warnings, written just before the protocol's terminator;
 * '' when there are none. SSE clients skip comments, and it stands alone (its own blank line)
 * because @google/genai drops any block that does not start with `data:`.
 */
export function sseWarningsComment(client: ClientContext, own: readonly TranslationWarning[]): string {
  const all = streamWarnings(client, own);
  return all.length === 0 ? '' : `: gateway-warnings ${warningsText(all)}\n\n`;
}
