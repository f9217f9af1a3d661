import { gatewayError, isContentEvent, type ChatRequest, type StreamEvent, type Usage } from '../ir/index.ts';
import type { EgressCodec, TranslationWarning } from '../protocols/codec.ts';
import { codecFor } from '../protocols/registry.ts';
import { WireBatch } from '../framing/wire-chunks.ts';
import { outcomeOf } from '../routing/outcome.ts';
import { describeBodyError, sendUpstream, type UpstreamResponse } from '../upstream/send-upstream.ts';
import { readUpstreamBody } from '../http-body/bounded-body.ts';
import { thrownFailure, upstreamErrorResult } from './attempt-failure.ts';
import type { ModelRoute } from '../config/runtime-config.ts';
import type { AttemptContext, AttemptResult } from './attempt-result.ts';
import type { LaneRun } from './failover.ts';
import { checkUnmapped } from './check-unmapped.ts';
import { inlineImageUrls, needsImageFetch } from '../media/inline-image-urls.ts';
import { warningsHeader } from './client-response.ts';
import type { Exchange } from './gateway-context.ts';
import { relayedHeaders } from './relayed-headers.ts';
import { redactedStreamError } from './upstream-error.ts';
import { credentialMaskFor } from './credential-mask.ts';
import { StreamTextMasker } from './stream-text-masker.ts';

/** Upstream answers are read whole only on the non-stream path; they are bounded all the same. */
const MAX_UPSTREAM_RESPONSE_BYTES = 64 * 1024 * 1024;

/**
 * Across protocols: the IR (decoded once per request) is encoded for this lane, and the answer is
 * decoded and encoded back for the client. Encoders are pure, so every attempt starts from the
 * same IR. Nothing reaches the client before the first content-bearing event. The encoding
 * happens here, before the lane is asked for anything: a field the lane's protocol cannot
 * express throws its 400, and failover tries a lane that can.
 */
export function translatedAttempt(exchange: Exchange, lane: ModelRoute, request: ChatRequest): LaneRun {
  const laneCodec = codecFor(lane.provider.protocol);
  if (laneCodec === undefined) throw new Error(`no codec for ${lane.provider.protocol}`); // config load prevents this
  const unmapped = checkUnmapped(request, laneCodec.id);
  const encode = (ready: ChatRequest): Encoded => {
    const encoded = laneCodec.encodeRequest(ready, { model: lane.upstreamModel, defaultMaxTokens: lane.defaultMaxTokens });
    return { laneCodec, body: JSON.stringify(encoded.body), warnings: [...unmapped, ...encoded.warnings] };
  };
  const { media } = exchange.gateway;
  if (!needsImageFetch(request, laneCodec.id, media)) {
    const ready = encode(request);
    return (attempt) => attemptTranslated(exchange, attempt, request, ready);
  }
  // Image URLs this lane takes only as bytes are fetched when the lane's turn comes; the encoding
  // (and a refused fetch's 400) waits for them.
  return (attempt) => attemptTranslated(exchange, attempt, request, async () => encode(await inlineImageUrls(request, laneCodec.id, media, exchange.signal)));
}

/** The request in the lane's protocol, and what the translation could not carry. */
interface Encoded {
  readonly laneCodec: EgressCodec;
  readonly body: string;
  readonly warnings: readonly TranslationWarning[];
}

async function attemptTranslated(
  exchange: Exchange,
  attempt: AttemptContext,
  request: ChatRequest,
  encoding: Encoded | (() => Promise<Encoded>),
): Promise<AttemptResult> {
  const { lane } = attempt;
  try {
    const encoded = typeof encoding === 'function' ? await encoding() : encoding;
    const { laneCodec } = encoded;
    // Per attempt: an answer's own warnings join the request's, and a retry starts from these again.
    const warnings = [...encoded.warnings];
    attempt.onSend();
    // Upstream time without `meter.upstream()`'s async wrapper (attempt-same-protocol.ts).
    exchange.meter.waitUpstream();
    const upstream = await sendUpstream(exchange.gateway.dispatchers.forConnectTimeout(lane.timeouts.connectMs), {
      provider: lane.provider,
      path: laneCodec.upstreamPath(lane.upstreamModel, request.stream),
      body: encoded.body,
      stream: request.stream,
      signal: attempt.signal,
      abortWatch: attempt,
      headersTimeoutMs: lane.timeouts.firstByteMs,
      idleTimeoutMs: lane.timeouts.idleMs,
    });
    exchange.meter.gotUpstream();
    exchange.meter.upstreamStatus = upstream.status;
    if (upstream.status >= 400) return await exchange.meter.upstream(upstreamErrorResult(upstream, laneCodec, lane, false));
    exchange.gateway.translations.recordHop(exchange.ingress.codec.id, laneCodec.id);
    const hop: Hop = { exchange, attempt, laneCodec, upstream, warnings, request };
    return request.stream ? await translateStream(hop) : await translateResponse(hop);
  } catch (error) {
    exchange.meter.gotUpstream();
    return thrownFailure(error, exchange, attempt);
  }
}

interface Hop {
  readonly exchange: Exchange;
  readonly attempt: AttemptContext;
  readonly laneCodec: EgressCodec;
  readonly upstream: UpstreamResponse;
  readonly warnings: TranslationWarning[];
  readonly request: ChatRequest;
}

function answerHeaders(hop: Hop): Record<string, string> {
  const { 'x-upstream-request-id': id } = relayedHeaders(hop.upstream.headers);
  return { ...(id !== undefined && { 'x-upstream-request-id': id }), 'x-gateway-lane': hop.attempt.lane.name, ...warningsHeader(hop.warnings) };
}

async function translateResponse(hop: Hop): Promise<AttemptResult> {
  hop.exchange.meter.waitUpstream();
  const raw = await readUpstreamBody(hop.upstream.body, MAX_UPSTREAM_RESPONSE_BYTES); // a throw ends the wait in attemptTranslated's catch
  hop.exchange.meter.gotUpstream();
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(raw.toString('utf8')) as Record<string, unknown>;
  } catch {
    const error = gatewayError('server', `upstream ${hop.attempt.lane.provider.name} answered with a body that is not JSON`, {
      status: 502,
      code: 'bad_upstream_response',
    });
    return { status: 'failed', error, outcome: 'lane_fault' };
  }
  const response = withIdentity(hop.laneCodec.decodeResponse(body), hop);
  const encoded = hop.exchange.ingress.codec.encodeResponse(response, { streamUsage: false, ...freeformTools(hop.request) });
  hop.warnings.push(...encoded.warnings);
  logWarnings(hop.exchange, hop.warnings);
  hop.exchange.meter.finishReason = response.finish.reason;
  hop.exchange.content?.answer(response.content);
  hop.attempt.onCommit();
  await hop.exchange.res.sendAnswer(200, { 'content-type': 'application/json', ...answerHeaders(hop) }, JSON.stringify(encoded.body), {
    lane: hop.attempt.lane,
    usage: response.usage,
  });
  return { status: 'committed', outcome: 'success' };
}

/**
 * Event by event, no buffering beyond one upstream read. Lifecycle events are held until the
 * first content-bearing one; an error or an end before it is a failed attempt. After commit, a
 * failure ends the stream with the client protocol's error event.
 */
async function translateStream(hop: Hop): Promise<AttemptResult> {
  const { exchange, attempt } = hop;
  const { res, meter } = exchange;
  const decoder = hop.laneCodec.createStreamDecoder();
  const encoder = exchange.ingress.codec.createStreamEncoder({
    streamUsage: hop.request.streamUsage === true,
    jsonArrayStream: exchange.origin.jsonArrayStream === true,
    warnings: hop.warnings,
    ...freeformTools(hop.request),
  });
  const held: StreamEvent[] = [];
  const textMasker = new StreamTextMasker(credentialMaskFor(attempt.lane.provider)); // a key cut across text deltas
  const batch = new WireBatch();
  let outcome: 'success' | 'lane_fault' = 'success';
  /** The client protocol's end marker has been written. */
  let stopped = false;
  let usage: Usage | null = null;
  let sent = 0;

  /** Keeps the latest usage report, and names the answer where the upstream does not (Bedrock, Cohere). */
  const note = (event: StreamEvent): StreamEvent => {
    if (event.type === 'error') return { type: 'error', error: redactedStreamError(attempt.lane.provider, event.error) };
    if (event.type === 'usage') usage = event.usage;
    if (event.type === 'finish') meter.finishReason = event.finish.reason;
    if (exchange.content !== undefined && event.type === 'block_delta' && event.delta.type === 'text') exchange.content.streamedText(event.delta.text);
    if (event.type !== 'message_start') return event;
    if (event.usage !== undefined) usage = event.usage;
    return withIdentity(event, hop);
  };

  /** Encodes what one upstream read produced and writes it in one piece. Returns a failure before commit. */
  const deliver = async (events: readonly StreamEvent[]): Promise<AttemptResult | 'open' | 'closed'> => {
    let state: 'open' | 'closed' = 'open';
    eachEvent: for (const upstreamEvent of events)
      for (const event of textMasker.pass(note(upstreamEvent))) {
        if (!res.isCommitted) {
          if (event.type === 'error') return { status: 'failed', error: event.error, outcome: outcomeOf(event.error) };
          held.push(event);
          if (!isContentEvent(event) && event.type !== 'message_stop') continue;
          attempt.onCommit();
          res.commit(200, { ...exchange.ingress.streamHeaders(exchange.origin), ...answerHeaders(hop) });
          for (const e of held.splice(0)) {
            batch.add(encoder.encode(e));
            if (e.type === 'message_stop') stopped = true;
          }
          continue;
        }
        batch.add(encoder.encode(event));
        if (event.type === 'message_stop') stopped = true;
        if (event.type === 'error') {
          outcome = 'lane_fault';
          state = 'closed';
          break eachEvent;
        }
      }
    const out = batch.take();
    sent += out.length;
    const full = res.write(out); // a wait only when the client's socket is full
    if (full !== undefined) await full;
    return state;
  };

  try {
    let state: AttemptResult | 'open' | 'closed' = 'open';
    const body = hop.upstream.body;
    // The body read directly (no promise per chunk): a wait only when nothing has come yet.
    for (let chunk = body.read(); chunk !== null; chunk = body.read()) {
      if (chunk === undefined) {
        meter.waitUpstream();
        await body.readable();
        meter.gotUpstream();
        continue;
      }
      state = await deliver(decoder.push(chunk));
      if (state !== 'open') break;
    }
    if (state === 'open') state = await deliver([...decoder.end(), ...textMasker.flush()]);
    else body.destroy();
    if (typeof state === 'object') return state;
  } catch (error) {
    meter.gotUpstream(); // a read that failed was a wait on the upstream too
    hop.upstream.body.destroy(); // a failure of this side (not the read's): the rest of the answer is not wanted
    if (!res.isCommitted) throw error; // judged by attemptTranslated: timer, network or codec
    if (exchange.signal.aborted) {
      // A client that closes once the end marker is written (openai-python after [DONE]) has its answer.
      if (!stopped || outcome !== 'success' || res.dropped) {
        await res.abandon({ lane: attempt.lane, usage, answerBytes: sent }); // what the client was sent (and any usage seen) is charged
        return { status: 'client_gone' };
      }
      logWarnings(exchange, [...hop.warnings, ...encoder.warnings]);
      await res.finish({ lane: attempt.lane, usage, answerBytes: sent });
      return { status: 'committed', outcome: 'success' };
    }
    await res.write(encoder.encode({ type: 'error', error: describeBodyError(error, attempt.lane.provider.name, 'stream') }));
    outcome = 'lane_fault';
  }
  if (!res.isCommitted) {
    // Nothing at all came (no content, no terminator): an empty stream is a failed attempt.
    return {
      status: 'failed',
      error: gatewayError('server', `upstream ${attempt.lane.provider.name} sent an empty stream`, { status: 502, code: 'empty_upstream_stream' }),
      outcome: 'lane_fault',
    };
  }
  logWarnings(exchange, [...hop.warnings, ...encoder.warnings]);
  await res.finish({ lane: attempt.lane, usage, answerBytes: sent });
  return { status: 'committed', outcome };
}

/**
 * Bedrock and Cohere answers name neither themselves nor the model; clients of the other protocols
 * expect both, so the lane's upstream model and the gateway's request id stand in.
 */
function withIdentity<T extends { readonly id: string; readonly model: string }>(value: T, hop: Hop): T {
  if (value.id !== '' && value.model !== '') return value;
  return { ...value, id: value.id || hop.exchange.requestId, model: value.model || hop.attempt.lane.upstreamModel };
}

/** The request's freeform (custom) tools, for a Responses client's answer; nothing when it has none. */
function freeformTools(request: ChatRequest): { freeformTools?: ReadonlySet<string> } {
  const names = request.tools?.filter((t) => t.freeform === true).map((t) => t.name) ?? [];
  return names.length === 0 ? {} : { freeformTools: new Set(names) };
}

function logWarnings(exchange: Exchange, warnings: readonly TranslationWarning[]): void {
  exchange.gateway.translations.recordWarnings(warnings);
  exchange.meter.warnings = warnings;
  for (const w of warnings) exchange.log.debug({ warning: w.kind, path: w.path }, w.message); // the request line lists warnings
}
