import type { IncomingHttpHeaders } from 'node:http';

/**
 * Upstream response headers a client may see. Connection-level headers are never relayed, and
 * neither are headers that describe the operator's upstream account (rate-limit budgets, org ids).
 * Bedrock names its error type only in `x-amzn-errortype` (the AWS SDKs throw an exception of that
 * name, `Unknown` without it) and its request id in `x-amzn-requestid` (the SDKs' `$metadata`).
 */
const RELAYED = ['content-type', 'retry-after', 'retry-after-ms', 'openai-processing-ms', 'x-amzn-errortype', 'x-amzn-requestid'];

export function relayedHeaders(upstream: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of RELAYED) {
    const value = upstream[name];
    if (typeof value === 'string') out[name] = value;
  }
  const upstreamId = upstream['x-request-id'] ?? upstream['request-id'] ?? upstream['x-amzn-requestid'];
  if (typeof upstreamId === 'string') out['x-upstream-request-id'] = upstreamId;
  return out;
}

/** The protocol headers (not credentials) a client sent that the same-protocol upstream should see. */
export function forwardedClientHeaders(client: IncomingHttpHeaders, names: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of names) {
    const value = client[name];
    if (typeof value === 'string') out[name] = value;
  }
  return out;
}
