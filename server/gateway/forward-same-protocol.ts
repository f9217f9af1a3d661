import type { ModelRoute } from '../config/runtime-config.ts';
import { GatewayFailure } from '../ir/index.ts';
import { setTopLevelString } from '../protocols/passthrough.ts';
import { describeNetworkError, sendUpstream } from '../upstream/send-upstream.ts';
import { readBounded } from '../upstream/read-text.ts';
import { retryAfterSeconds } from '../upstream/retry-after.ts';
import type { Exchange } from './gateway-context.ts';
import { forwardedClientHeaders, relayedHeaders } from './relayed-headers.ts';
import { classifyUpstreamError, isUpstreamCredentialFailure, redactCredential, upstreamCredentialFailure } from './upstream-error.ts';

/**
 * Same protocol in and out: the client's bytes go upstream with only `model` rewritten, and the
 * upstream's bytes (answer, stream or error) come back untouched.
 */
export async function forwardSameProtocol(exchange: Exchange, lane: ModelRoute, body: Buffer, stream: boolean): Promise<void> {
  const { gateway, ingress, res } = exchange;
  const upstream = await sendUpstream(gateway.dispatcher, {
    provider: lane.provider,
    path: ingress.codec.upstreamPath(lane.upstreamModel, stream),
    body: setTopLevelString(body, 'model', lane.upstreamModel),
    forwardHeaders: forwardedClientHeaders(exchange.req.headers, ingress.forwardedHeaders),
    stream,
    signal: exchange.signal,
  });
  const headers = relayedHeaders(upstream.headers);
  if (upstream.status >= 400) {
    const errorBody = await readBounded(upstream.body);
    if (isUpstreamCredentialFailure(upstream.status)) {
      exchange.log.error({ status: upstream.status, provider: lane.provider.name }, 'upstream refused the operator credential');
      throw new GatewayFailure(upstreamCredentialFailure(lane.provider, upstream.status));
    }
    // Already in the client's protocol: relayed as sent, status included (529 stays 529), with
    // only an echoed operator key masked.
    const text = errorBody.toString('utf8');
    const error = classifyUpstreamError(lane.provider, ingress.codec.decodeError({ status: upstream.status, bodyText: text, headers: upstream.headers, retryAfterSeconds: retryAfterSeconds(upstream.headers) }));
    exchange.log.info({ status: upstream.status, kind: error.kind, provider: lane.provider.name }, 'upstream error relayed');
    const redacted = redactCredential(lane.provider, text);
    res.sendBody(upstream.status, headers, redacted === text ? errorBody : redacted);
    return;
  }
  const length = upstream.headers['content-length'];
  // A known length lets the client's connection skip chunked framing.
  res.commit(upstream.status, typeof length === 'string' && !stream ? { ...headers, 'content-length': length } : headers);
  try {
    for await (const chunk of upstream.body) await res.write(chunk as Buffer);
    res.end();
  } catch (error) {
    if (exchange.signal.aborted) return;
    upstream.body.destroy();
    const failure = describeNetworkError(error, lane.provider.name);
    exchange.log.warn({ provider: lane.provider.name, code: failure.code }, 'upstream failed after commit');
    if (!stream) throw new GatewayFailure(failure);
    // A stream cut after commit ends with an error event, never a clean-looking end. For SSE, a
    // blank line first terminates any event the upstream left half-written.
    const errorEvent = ingress.codec.createStreamEncoder({ streamUsage: false }).encode({ type: 'error', error: failure });
    await res.write(typeof errorEvent === 'string' ? `\n\n${errorEvent}` : errorEvent);
    res.end();
  }
}
