import { findTopLevelValue } from '../passthrough.ts';

const MEMBER = Buffer.from('"stream_options":{"include_usage":true}');
const COMMA = Buffer.from(',');

/**
 * An OpenAI chat stream reports usage only when asked (`stream_options.include_usage`); spend
 * and token metrics need it. Returns the same-protocol request bytes asking for it, editing only
 * that member (inserted first when absent; other `stream_options` members kept), and whether the
 * client had asked itself (then the bytes are returned unchanged).
 */
export function requestStreamUsage(body: Buffer): { readonly body: Buffer; readonly clientAsked: boolean } {
  const span = findTopLevelValue(body, 'stream_options');
  if (span === undefined) {
    const open = body.indexOf(0x7b); // '{': the body is a validated JSON object
    const rest = body.subarray(open + 1);
    const isEmpty = rest.toString('latin1').trim() === '}';
    return { body: Buffer.concat([body.subarray(0, open + 1), MEMBER, ...(isEmpty ? [] : [COMMA]), rest]), clientAsked: false };
  }
  // Present: a small object (or null); parsed alone, the rest of the body stays as sent.
  const options = JSON.parse(body.toString('utf8', span.start, span.end)) as Record<string, unknown> | null;
  if (options !== null && options.include_usage === true) return { body, clientAsked: true };
  const value = Buffer.from(JSON.stringify({ ...options, include_usage: true }));
  return { body: Buffer.concat([body.subarray(0, span.start), value, body.subarray(span.end)]), clientAsked: false };
}
