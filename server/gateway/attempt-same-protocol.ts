import type { ModelRoute } from '../config/runtime-config.ts';
import { isContentEvent, type StreamEvent, type Usage } from '../ir/index.ts';
import type { ProtocolCodec, WireChunk } from '../protocols/codec.ts';
import { withOutputLimit } from '../protocols/output-limit.ts';
import { replaceTopLevelString } from '../protocols/passthrough.ts';
import { outcomeOf } from '../routing/outcome.ts';
import { describeBodyError, describeNetworkError, sendUpstream } from '../upstream/send-upstream.ts';
import type { UpstreamReply } from '../upstream/upstream-reply.ts';
import { readUpstreamBody } from '../http-body/bounded-body.ts';
import { thrownFailure, upstreamErrorResult } from './attempt-failure.ts';
import { redactedStreamError } from './upstream-error.ts';
import { OpenAIUsageStrip } from '../framing/openai-usage-strip.ts';
import { WholeLines } from '../framing/whole-lines.ts';
import { sseEventEnd } from '../framing/sse-event-end.ts';
import { StreamTail } from './stream-tail.ts';
import type { AttemptContext, AttemptResult } from './attempt-result.ts';
import type { Exchange } from './gateway-context.ts';
import { forwardedClientHeaders, relayedHeaders } from './relayed-headers.ts';
import { scannedUsage } from './answer-usage-scan.ts';

const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

export interface SameProtocolOptions {
  /** The gateway asked the upstream for stream usage the client did not ask for: take it out again. */
  readonly stripUsage?: boolean;
  /** Under a budget, when the client set no output limit: send the lane's, which the reservation assumed. */
  readonly capOutput?: boolean;
}

/**
 * Same protocol in and out: the client's bytes go upstream with only `model` rewritten, and the
 * upstream's bytes come back untouched. Before commit the answer is judged, so a failing lane
 * can still be swapped for another: a whole non-stream body is read first; a stream is read
 * (and decoded on the side, to see its events) until its first content-bearing event.
 */
export async function attemptSameProtocol(
  exchange: Exchange,
  attempt: AttemptContext,
  body: Buffer,
  stream: boolean,
  options: SameProtocolOptions = {},
): Promise<AttemptResult> {
  const { ingress, meter } = exchange;
  const { lane } = attempt;
  try {
    attempt.onSend();
    // Upstream time: waitUpstream/gotUpstream around the awaits here, not `meter.upstream()`'s
    // async wrapper (a frame and promises per await); a wait cut by a throw ends in the catch.
    meter.waitUpstream();
    const upstream = await sendUpstream(exchange.gateway.dispatchers.forConnectTimeout(lane.timeouts.connectMs), {
      provider: lane.provider,
      path: ingress.codec.upstreamPath(lane.upstreamModel, stream, exchange.origin),
      body: upstreamBody(body, lane, ingress.codec, options.capOutput === true),
      forwardHeaders: forwardedClientHeaders(exchange.req.headers, ingress.forwardedHeaders),
      stream,
      signal: attempt.signal,
      abortWatch: attempt,
      headersTimeoutMs: lane.timeouts.firstByteMs,
      idleTimeoutMs: lane.timeouts.idleMs,
    });
    meter.gotUpstream();
    meter.upstreamStatus = upstream.status;
    if (upstream.status >= 400) return await meter.upstream(upstreamErrorResult(upstream, ingress.codec, lane, true));
    const headers = relayedHeaders(upstream.headers); // a fresh object, this attempt's own
    headers['x-gateway-lane'] = lane.name;
    if (!stream) {
      meter.waitUpstream();
      const answer = await readUpstreamBody(upstream.body, MAX_RESPONSE_BYTES);
      meter.gotUpstream();
      return await relayAnswer(exchange, attempt, answer, upstream.status, headers);
    }
    return await relayStream(exchange, attempt, upstream.body, upstream.status, headers, options.stripUsage === true ? new OpenAIUsageStrip() : undefined);
  } catch (error) {
    meter.gotUpstream();
    return thrownFailure(error, exchange, attempt);
  }
}

/** Not async: without a finisher (governance) the answer is sent at once, with no frame or promise made. */
function relayAnswer(
  exchange: Exchange,
  attempt: AttemptContext,
  answer: Buffer,
  status: number,
  headers: Record<string, string>,
): AttemptResult | Promise<AttemptResult> {
  // A relay's HTML page or an empty body is a failed attempt, not an answer.
  if (!looksLikeJsonObject(answer))
    return { status: 'failed', error: describeNetworkError(new Error('not JSON'), attempt.lane.provider.name), outcome: 'lane_fault' };
  attempt.onCommit();
  const usage = readsUsage(exchange) ? (scannedUsage(exchange, answer) ?? usageOfAnswer(exchange, answer)) : null;
  headers['content-type'] ??= 'application/json';
  const settling = exchange.res.sendAnswer(status, headers, answer, { lane: attempt.lane, usage });
  return settling === undefined ? COMMITTED : settling.then(committed);
}

/** A committed success; never written to, so one object serves every request. */
const COMMITTED: AttemptResult = Object.freeze({ status: 'committed', outcome: 'success' });

function committed(): AttemptResult {
  return COMMITTED;
}

/** The client's bytes with the lane's model, and (under a budget, when the client set none) the lane's output limit. */
function upstreamBody(body: Buffer, lane: ModelRoute, codec: ProtocolCodec, capOutput: boolean): Buffer {
  // Gemini and Bedrock name the model in the path: their body is never given one.
  const named = codec.bodyCarriesModel ? replaceTopLevelString(body, 'model', lane.upstreamModel) : body;
  return capOutput ? withOutputLimit(named, codec.id, lane.defaultMaxTokens) : named;
}

/**
 * The decoder keeps reading after commit: it is what notices a stream that ends without its
 * terminator (which the relayed bytes alone would pass off as a clean end), and what reads usage.
 */
async function relayStream(
  exchange: Exchange,
  attempt: AttemptContext,
  body: UpstreamReply,
  status: number,
  headers: Record<string, string>,
  strip: OpenAIUsageStrip | undefined,
): Promise<AttemptResult> {
  const { res, ingress, meter } = exchange;
  const probe = ingress.codec.createStreamDecoder();
  const sse = isSse(headers['content-type']);
  // Without governance (or content capture) nothing needs every event, so after commit only the
  // stream's end is read.
  const tail = exchange.gateway.config.governance || exchange.content !== undefined || !sse ? undefined : new StreamTail();
  let tailUsed = false;
  // SSE goes to the client in whole lines, so an error event appended later starts cleanly.
  const lines = sse ? new WholeLines() : undefined;
  const held: Buffer[] = [];
  let committed = false;
  let usage: Usage | null = null;
  let sent = 0;
  const summary = () => ({ lane: attempt.lane, usage, answerBytes: sent });
  /** The terminator (or an error) was decoded before commit: the stream's end is already known. */
  let sawEnd = false;
  /** The protocol's end marker was among the events decoded (the probe's, or the tail's at the end). */
  let sawStop = false;
  /** After commit the upstream sent its own in-band error, relayed as is: the stream already says so. */
  let relayedError = false;
  // Indexed loops, one pass: no iterator object per call (these run on every decoded read).
  const noteRelayedError = (events: readonly StreamEvent[]) => {
    for (let i = 0; i < events.length; i++) if (events[i]!.type === 'error') relayedError = true;
  };
  const noteUsage = (events: readonly StreamEvent[]) => {
    const content = exchange.content;
    for (let i = 0; i < events.length; i++) {
      const e = events[i]!;
      if (e.type === 'message_stop') sawEnd = sawStop = true;
      else if (e.type === 'error') sawEnd = true;
      else if (e.type === 'usage') usage = e.usage;
      else if (e.type === 'message_start') usage = e.usage ?? usage;
      else if (e.type === 'finish') meter.finishReason = e.finish.reason;
      else if (content !== undefined && e.type === 'block_delta' && e.delta.type === 'text') content.streamedText(e.delta.text);
    }
  };
  // Writes return the wait for a full socket to drain, or undefined: no promise per chunk.
  const write = (out: Buffer): Promise<void> | undefined => {
    if (out.length === 0) return undefined;
    sent += out.length;
    return res.write(out);
  };
  /** Relays upstream bytes (without the usage the client did not ask for, when stripping). */
  const relay = (bytes: Buffer) => write(strip === undefined ? bytes : strip.push(bytes));
  /** Relays whole lines only (SSE); an unfinished line waits for its end. */
  const send = (bytes: Buffer) => relay(lines === undefined ? bytes : lines.take(bytes));
  /** At a clean end, a stream without a last line end still delivers what it sent (the wait for a full socket, if any). */
  const sendRest = (): Promise<void> | undefined => {
    const rest = lines?.rest();
    return rest === undefined ? undefined : relay(rest);
  };
  /**
   * The end of what is relayed: a stripped stream's unfinished last event goes out as it came.
   * Straight to the client: the strip holds only bytes that already passed the line cut.
   */
  const flush = (): Promise<void> | undefined => (strip === undefined ? undefined : write(strip.end()));
  const endWithError = async (event: WireChunk): Promise<AttemptResult> => {
    await flush();
    // For SSE, a blank line first terminates any event the upstream left half-written.
    await res.write(typeof event === 'string' ? `\n\n${event}` : event);
    await res.finish(summary());
    return { status: 'committed', outcome: 'lane_fault' };
  };
  /** The stream's last events, its end included; notes their usage, and an error the client was sent. */
  const readEnding = (): StreamEvent[] => {
    // The probe saw everything up to commit; the tail, when used, everything after it.
    const fromTail = tail !== undefined && tailUsed && !sawEnd;
    const read =
      tail !== undefined && tailUsed ? (sawEnd ? undefined : tail.readEnd(probe.forStreamEnd?.() ?? ingress.codec.createStreamDecoder())) : undefined;
    if (read !== undefined) noteRelayedError(read.relayed);
    const ending = read === undefined ? (tail !== undefined && tailUsed ? [] : probe.end()) : [...read.relayed, ...read.end];
    const probed: Usage | null = usage;
    noteUsage(ending);
    // The tail's fresh decoder never saw the stream's start (Anthropic reports input tokens only
    // there); counts are cumulative, so the larger of each is the stream's.
    if (fromTail && probed !== null) usage = largerCounts(probed, usage);
    return ending;
  };
  try {
    // The body read directly (no promise per chunk): a wait only when nothing has come yet.
    for (let bytes = body.read(); bytes !== null; bytes = body.read()) {
      if (bytes === undefined) {
        meter.waitUpstream();
        await body.readable();
        meter.gotUpstream();
        continue;
      }
      // Credentials are masked where bytes leave (ClientResponse).
      if (committed && tail !== undefined) {
        tail.push(bytes);
        tailUsed = true;
        const full = send(bytes);
        if (full !== undefined) await full;
        continue;
      }
      if (committed) {
        const events = probe.push(bytes);
        noteUsage(events);
        noteRelayedError(events);
        const full = send(bytes);
        if (full !== undefined) await full;
        continue;
      }
      // Before commit, an SSE read is decoded one event at a time, and only up to the first
      // content event: what follows it in the same read goes the cheap way, to the tail.
      const heldBefore = held.length; // lifecycle events of earlier reads, held back
      let start = 0;
      while (start < bytes.length) {
        const end = tail === undefined ? -1 : sseEventEnd(bytes, start);
        const stop = end === -1 ? bytes.length : end;
        const piece = start === 0 && stop === bytes.length ? bytes : bytes.subarray(start, stop);
        start = stop;
        const events = probe.push(piece);
        noteUsage(events);
        held.push(piece);
        const verdict = judge(events);
        if (verdict.kind === 'error') {
          body.destroy();
          const error = redactedStreamError(attempt.lane.provider, verdict.event.error);
          return { status: 'failed', error, outcome: outcomeOf(error) };
        }
        if (verdict.kind !== 'content') continue;
        noteRelayedError(events); // one read of a framed stream may hold content and an error after it
        committed = true;
        attempt.onCommit();
        res.commit(status, headers);
        // The usual first read holds everything up to commit: it goes out as it came, uncopied.
        const first = heldBefore === 0 ? bytes.subarray(0, stop) : Buffer.concat(held);
        held.length = 0;
        tail?.startAfter(first);
        const rest = stop < bytes.length ? bytes.subarray(stop) : undefined;
        if (rest !== undefined) {
          tail?.push(rest);
          tailUsed = true;
        }
        const full = send(heldBefore === 0 ? bytes : rest === undefined ? first : Buffer.concat([first, rest]));
        if (full !== undefined) await full;
        break;
      }
    }
  } catch (error) {
    meter.gotUpstream(); // a read that failed was a wait on the upstream too
    body.destroy(); // a failure of this side (not the read's): the rest of the answer is not wanted
    if (!committed) throw error;
    if (exchange.signal.aborted) {
      // A client that closes once the end marker is relayed (openai-python after [DONE]) has its answer.
      const ending = readEnding();
      if (!sawStop || ending.some((e) => e.type === 'error') || res.dropped) {
        await res.abandon(summary()); // what the client was sent (and any usage seen) is charged
        return { status: 'client_gone' };
      }
      await sendRest();
      await flush();
      await res.finish(summary());
      return { status: 'committed', outcome: 'success' };
    }
    const failure = describeBodyError(error, attempt.lane.provider.name, 'stream');
    return endWithError(ingress.codec.createStreamEncoder({ streamUsage: false }).encode({ type: 'error', error: failure }));
  }
  const ending = readEnding();
  // The end read may repeat content events (the tail's last few): any error among them decides.
  const decodedEndError = ending.find((e): e is Extract<StreamEvent, { type: 'error' }> => e.type === 'error');
  const endError =
    decodedEndError === undefined ? undefined : { type: 'error' as const, error: redactedStreamError(attempt.lane.provider, decodedEndError.error) };
  if (!committed) {
    // The stream ended before it could be committed: an empty or cut stream is a failed attempt.
    if (endError !== undefined) return { status: 'failed', error: endError.error, outcome: 'lane_fault' };
    attempt.onCommit();
    res.commit(status, headers);
    await send(Buffer.concat(held));
    await sendRest();
  } else if (relayedError) {
    // The upstream's own error event reached the client: a lane fault, with nothing to add.
    await flush();
    await res.finish(summary());
    return { status: 'committed', outcome: 'lane_fault' };
  } else if (endError !== undefined) {
    // The upstream closed cleanly but without its terminator: say so in the client's protocol.
    return endWithError(ingress.codec.createStreamEncoder({ streamUsage: false }).encode(endError));
  } else {
    const full = sendRest();
    if (full !== undefined) await full;
  }
  // The usual end makes no promise: nothing held back, no finisher (governance off).
  const flushed = flush();
  if (flushed !== undefined) await flushed;
  const finished = res.finish(summary());
  if (finished !== undefined) await finished;
  return COMMITTED;
}

/**
 * A same-protocol answer is parsed only when someone will use its usage: spend settlement
 * (governance) or the request record's observers (metrics, logs, traces).
 */
function readsUsage(exchange: Exchange): boolean {
  return exchange.gateway.governance !== undefined || exchange.gateway.observers.length > 0;
}

/** Usage (and the finish reason, for the request record) from a same-protocol answer. */
function usageOfAnswer(exchange: Exchange, answer: Buffer): Usage | null {
  try {
    const response = exchange.ingress.codec.decodeResponse(JSON.parse(answer.toString('utf8')) as Record<string, unknown>);
    exchange.meter.finishReason = response.finish.reason;
    exchange.content?.answer(response.content);
    return response.usage;
  } catch {
    return null; // settled on an estimate
  }
}

function largerCounts(a: Usage, b: Usage | null): Usage {
  if (b === null) return a;
  return {
    inputTokens: Math.max(a.inputTokens, b.inputTokens),
    outputTokens: Math.max(a.outputTokens, b.outputTokens),
    cacheReadTokens: Math.max(a.cacheReadTokens, b.cacheReadTokens),
    cacheWriteTokens: Math.max(a.cacheWriteTokens, b.cacheWriteTokens),
    reasoningTokens: Math.max(a.reasoningTokens, b.reasoningTokens),
  };
}

type Verdict = { kind: 'none' } | { kind: 'content' } | { kind: 'error'; event: Extract<StreamEvent, { type: 'error' }> };

/** Lifecycle events (role chunks, message_start, pings) decide nothing; content commits; an error fails. */
function judge(events: readonly StreamEvent[]): Verdict {
  for (const event of events) {
    if (event.type === 'error') return { kind: 'error', event };
    if (isContentEvent(event) || event.type === 'message_stop') return { kind: 'content' };
  }
  return { kind: 'none' };
}

function isSse(contentType: string | undefined): boolean {
  return contentType?.toLowerCase().startsWith('text/event-stream') === true;
}

function looksLikeJsonObject(body: Buffer): boolean {
  for (const byte of body) {
    if (byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09) continue;
    return byte === 0x7b; // '{'
  }
  return false;
}
