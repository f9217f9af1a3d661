import type { ModelRoute } from '../config/runtime-config.ts';
import { GatewayFailure, gatewayError, isContentEvent, type ChatRequest, type StreamEvent } from '../ir/index.ts';
import type { EgressCodec, TranslationWarning } from '../protocols/codec.ts';
import { codecFor } from '../protocols/registry.ts';
import { SSE_HEADERS } from '../framing/sse-format.ts';
import { WireBatch } from '../framing/wire-chunks.ts';
import { describeNetworkError, sendUpstream, type UpstreamResponse } from '../upstream/send-upstream.ts';
import { readBounded } from '../upstream/read-text.ts';
import { retryAfterSeconds } from '../upstream/retry-after.ts';
import { checkUnmapped } from './check-unmapped.ts';
import { warningsHeader } from './client-response.ts';
import type { Exchange } from './gateway-context.ts';
import { relayedHeaders } from './relayed-headers.ts';
import { classifyUpstreamError, isUpstreamCredentialFailure, redactCredential, upstreamCredentialFailure } from './upstream-error.ts';

/** Upstream answers are read whole only on the non-stream path; they are bounded all the same. */
const MAX_UPSTREAM_RESPONSE_BYTES = 64 * 1024 * 1024;

/** Across protocols: client wire -> IR -> lane wire, and the answer back the same way. */
export async function translate(exchange: Exchange, lane: ModelRoute, json: Record<string, unknown>): Promise<void> {
  const clientCodec = exchange.ingress.codec;
  const laneCodec = codecFor(lane.provider.protocol);
  if (laneCodec === undefined) throw new Error(`no codec for ${lane.provider.protocol}`); // config load prevents this
  const request = clientCodec.decodeRequest(json, exchange.origin);
  const warnings = checkUnmapped(request, laneCodec.id);
  const encoded = laneCodec.encodeRequest(request, { model: lane.upstreamModel, defaultMaxTokens: lane.defaultMaxTokens });
  warnings.push(...encoded.warnings);
  logWarnings(exchange, warnings);

  const upstream = await sendUpstream(exchange.gateway.dispatcher, {
    provider: lane.provider,
    path: laneCodec.upstreamPath(lane.upstreamModel, request.stream),
    body: JSON.stringify(encoded.body),
    stream: request.stream,
    signal: exchange.signal,
  });
  if (upstream.status >= 400) throw new GatewayFailure(await upstreamFailure(upstream, laneCodec, lane));
  if (request.stream) await translateStream(exchange, { lane, laneCodec, upstream, request, warnings });
  else await translateResponse(exchange, { lane, laneCodec, upstream, warnings });
}

async function upstreamFailure(upstream: UpstreamResponse, laneCodec: EgressCodec, lane: ModelRoute) {
  const text = redactCredential(lane.provider, (await readBounded(upstream.body)).toString('utf8'));
  if (isUpstreamCredentialFailure(upstream.status)) return upstreamCredentialFailure(lane.provider, upstream.status);
  return classifyUpstreamError(lane.provider, laneCodec.decodeError({ status: upstream.status, bodyText: text, headers: upstream.headers, retryAfterSeconds: retryAfterSeconds(upstream.headers) }));
}

interface Hop {
  readonly lane: ModelRoute;
  readonly laneCodec: EgressCodec;
  readonly upstream: UpstreamResponse;
  readonly warnings: TranslationWarning[];
}

async function translateResponse(exchange: Exchange, hop: Hop): Promise<void> {
  const raw = await readBounded(hop.upstream.body, MAX_UPSTREAM_RESPONSE_BYTES);
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
  } catch {
    throw new GatewayFailure(gatewayError('server', `upstream ${hop.lane.provider.name} answered with a body that is not JSON`, { status: 502, code: 'bad_upstream_response' }));
  }
  const response = hop.laneCodec.decodeResponse(body);
  const encoded = exchange.ingress.codec.encodeResponse(response, { streamUsage: false });
  hop.warnings.push(...encoded.warnings);
  logWarnings(exchange, encoded.warnings);
  exchange.res.sendBody(200, { 'content-type': 'application/json', ...upstreamIds(hop), ...warningsHeader(hop.warnings) }, JSON.stringify(encoded.body));
}

/**
 * Streams are translated event by event with no buffering. Nothing is sent to the client until
 * the first content-bearing event: an upstream that fails before that still gets a proper HTTP
 * error in the client's protocol. After commit, a failure ends the stream with an error event.
 */
async function translateStream(exchange: Exchange, hop: Hop & { readonly request: ChatRequest }): Promise<void> {
  const { res } = exchange;
  const decoder = hop.laneCodec.createStreamDecoder();
  const encoder = exchange.ingress.codec.createStreamEncoder({ streamUsage: hop.request.streamUsage === true });
  const held: StreamEvent[] = [];
  const commit = () => res.commit(200, { ...SSE_HEADERS, ...upstreamIds(hop), ...warningsHeader(hop.warnings) });

  /** Encodes what one upstream read produced and writes it in one piece: one syscall, not one per event. */
  const batch = new WireBatch();
  const deliver = async (events: StreamEvent[]): Promise<boolean> => {
    let open = true;
    for (const event of events) {
      if (!res.isCommitted) {
        if (event.type === 'error') throw new GatewayFailure(event.error);
        held.push(event);
        if (!isContentEvent(event) && event.type !== 'message_stop') continue;
        commit();
        for (const e of held.splice(0)) batch.add(encoder.encode(e));
        continue;
      }
      batch.add(encoder.encode(event));
      if (event.type === 'error') {
        open = false;
        break;
      }
    }
    await res.write(batch.take());
    return open;
  };

  try {
    let open = true;
    for await (const chunk of hop.upstream.body) {
      open = await deliver(decoder.push(chunk as Buffer));
      if (!open) break; // the upstream reported an error: the stream is over
    }
    if (open) await deliver(decoder.end());
    else hop.upstream.body.destroy();
  } catch (error) {
    if (exchange.signal.aborted) return;
    if (error instanceof GatewayFailure) throw error;
    const failure = describeNetworkError(error, hop.lane.provider.name);
    if (!res.isCommitted) throw new GatewayFailure(failure);
    await res.write(encoder.encode({ type: 'error', error: failure }));
  }
  logWarnings(exchange, encoder.warnings);
  res.end();
}

function upstreamIds(hop: Hop): Record<string, string> {
  const { 'x-upstream-request-id': id } = relayedHeaders(hop.upstream.headers);
  return id === undefined ? {} : { 'x-upstream-request-id': id };
}

function logWarnings(exchange: Exchange, warnings: readonly TranslationWarning[]): void {
  for (const w of warnings) exchange.log.warn({ warning: w.kind, path: w.path }, w.message);
}
