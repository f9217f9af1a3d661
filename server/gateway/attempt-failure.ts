import type { ModelRoute } from '../config/runtime-config.ts';
import { GatewayFailure, gatewayError, type GatewayError } from '../ir/index.ts';
import type { EgressCodec } from '../protocols/codec.ts';
import { outcomeOf } from '../routing/outcome.ts';
import { describeBodyError, type UpstreamResponse } from '../upstream/send-upstream.ts';
import { readUpstreamBody } from '../http-body/bounded-body.ts';
import { retryAfterSeconds } from '../upstream/retry-after.ts';
import type { AttemptContext, AttemptResult } from './attempt-result.ts';
import type { Exchange } from './gateway-context.ts';
import { relayedHeaders } from './relayed-headers.ts';
import { isStackOverflow, requestTooDeep } from './request-too-deep.ts';
import { classifyUpstreamError, isUpstreamCredentialFailure, redactCredential, upstreamCredentialFailure } from './upstream-error.ts';

/**
 * An upstream error status, read and classified. `relayAs` is set when the client speaks the
 * upstream's protocol: its bytes can then be relayed verbatim if this becomes the final answer.
 */
export async function upstreamErrorResult(upstream: UpstreamResponse, codec: EgressCodec, lane: ModelRoute, relayAs: boolean): Promise<AttemptResult> {
  const body = await readUpstreamBody(upstream.body);
  if (isUpstreamCredentialFailure(upstream.status)) {
    return { status: 'failed', error: upstreamCredentialFailure(lane.provider, upstream.status), outcome: 'lane_config_fault' };
  }
  const text = redactCredential(lane.provider, body.toString('utf8'));
  const decoded = codec.decodeError({
    status: upstream.status,
    bodyText: text,
    headers: upstream.headers,
    retryAfterSeconds: retryAfterSeconds(upstream.headers),
  });
  const error = classifyUpstreamError(lane.provider, decoded);
  const relay = relayAs
    ? { status: upstream.status, headers: relayedHeaders(upstream.headers), body: text === body.toString('utf8') ? body : Buffer.from(text) }
    : undefined;
  return { status: 'failed', error, outcome: outcomeOf(error), ...(relay !== undefined && { relay }) };
}

/**
 * A thrown failure during an attempt, before commit: the client leaving, this attempt's own
 * timer, a network fault, or a GatewayFailure raised by a codec.
 */
export function thrownFailure(error: unknown, exchange: Exchange, attempt: AttemptContext): AttemptResult {
  if (exchange.clientGone.aborted) return { status: 'client_gone' };
  if (error instanceof GatewayFailure) {
    return { status: 'failed', error: error.error, outcome: outcomeOf(error.error) };
  }
  if (isStackOverflow(error)) return { status: 'failed', error: requestTooDeep(), outcome: 'client_fault' }; // the client's request, not the lane
  if (attempt.signal.aborted) {
    return { status: 'failed', error: firstByteTimeout(attempt), outcome: 'lane_fault' };
  }
  return { status: 'failed', error: describeBodyError(error, attempt.lane.provider.name, 'answer'), outcome: 'lane_fault' };
}

export function firstByteTimeout(attempt: AttemptContext): GatewayError {
  return gatewayError('timeout', `upstream ${attempt.lane.provider.name} sent no content within ${attempt.lane.timeouts.firstByteMs} ms`, {
    status: 504,
    code: 'upstream_timeout',
  });
}
