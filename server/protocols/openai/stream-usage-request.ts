import { findTopLevelValue, withMemberValue } from '../passthrough.ts';

const INCLUDE_USAGE = Buffer.from('{"include_usage":true}');

/**
 * An OpenAI chat stream reports usage only when asked (`stream_options.include_usage`); spend
 * and token metrics need it. Returns the same-protocol request bytes asking for it, editing only
 * that member (inserted first when absent; other `stream_options` members kept), and whether the
 * client had asked itself (then the bytes are returned unchanged).
 */
export function requestStreamUsage(body: Buffer): { readonly body: Buffer; readonly clientAsked: boolean } {
  const span = findTopLevelValue(body, 'stream_options');
  // Present: a small object (or null), parsed alone; the rest of the body stays as sent.
  const options = span === undefined ? null : (JSON.parse(body.toString('utf8', span.start, span.end)) as Record<string, unknown> | null);
  if (options !== null && options.include_usage === true) return { body, clientAsked: true };
  const value = options === null ? INCLUDE_USAGE : Buffer.from(JSON.stringify({ ...options, include_usage: true }));
  return { body: withMemberValue(body, 'stream_options', value, span), clientAsked: false };
}
