import { isContentEvent, type StreamEvent } from '../ir/index.ts';
import { setTopLevelString } from '../protocols/passthrough.ts';
import { outcomeOf } from '../routing/outcome.ts';
import { describeNetworkError, sendUpstream } from '../upstream/send-upstream.ts';
import { readBounded } from '../upstream/read-text.ts';
import { thrownFailure, upstreamErrorResult } from './attempt-failure.ts';
import type { AttemptContext, AttemptResult } from './attempt-result.ts';
import type { Exchange } from './gateway-context.ts';
import { forwardedClientHeaders, relayedHeaders } from './relayed-headers.ts';

const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/**
 * Same protocol in and out: the client's bytes go upstream with only `model` rewritten, and the
 * upstream's bytes come back untouched. Before commit the answer is judged, so a failing lane
 * can still be swapped for another: a whole non-stream body is read first; a stream is read
 * (and decoded on the side, to see its events) until its first content-bearing event.
 */
export async function attemptSameProtocol(exchange: Exchange, attempt: AttemptContext, body: Buffer, stream: boolean): Promise<AttemptResult> {
  const { ingress, res } = exchange;
  const { lane } = attempt;
  try {
    const upstream = await sendUpstream(exchange.gateway.dispatchers.forConnectTimeout(lane.timeouts.connectMs), {
      provider: lane.provider,
      path: ingress.codec.upstreamPath(lane.upstreamModel, stream, exchange.origin),
      body: setTopLevelString(body, 'model', lane.upstreamModel),
      forwardHeaders: forwardedClientHeaders(exchange.req.headers, ingress.forwardedHeaders),
      stream,
      signal: attempt.signal,
      headersTimeoutMs: lane.timeouts.firstByteMs,
      idleTimeoutMs: lane.timeouts.idleMs,
    });
    if (upstream.status >= 400) return await upstreamErrorResult(upstream, ingress.codec, lane, true);
    const headers: Record<string, string> = { ...relayedHeaders(upstream.headers), 'x-gateway-lane': lane.name };

    if (!stream) {
      const answer = await readBounded(upstream.body, MAX_RESPONSE_BYTES);
      // A relay's HTML page or an empty body is a failed attempt, not an answer.
      if (!looksLikeJsonObject(answer)) return { status: 'failed', error: describeNetworkError(new Error('not JSON'), lane.provider.name), outcome: 'lane_fault' };
      attempt.onCommit();
      res.sendBody(upstream.status, { ...headers, 'content-type': headers['content-type'] ?? 'application/json' }, answer);
      return { status: 'committed', outcome: 'success' };
    }

    const probe = ingress.codec.createStreamDecoder();
    const held: Buffer[] = [];
    let committed = false;
    try {
      for await (const chunk of upstream.body) {
        const bytes = chunk as Buffer;
        // The decoder keeps reading after commit: it is what notices a stream that ends without
        // its terminator, which the relayed bytes alone would pass off as a clean end.
        const events = probe.push(bytes);
        if (committed) {
          await res.write(bytes);
          continue;
        }
        held.push(bytes);
        const verdict = judge(events);
        if (verdict.kind === 'error') {
          upstream.body.destroy();
          return { status: 'failed', error: verdict.event.error, outcome: outcomeOf(verdict.event.error) };
        }
        if (verdict.kind === 'content') {
          committed = true;
          attempt.onCommit();
          res.commit(upstream.status, headers);
          await res.write(Buffer.concat(held));
          held.length = 0;
        }
      }
    } catch (error) {
      if (!committed) throw error;
      if (exchange.signal.aborted) return { status: 'client_gone' };
      // A stream cut after commit ends with an error event, never a clean-looking end. For SSE, a
      // blank line first terminates any event the upstream left half-written.
      const failure = describeNetworkError(error, lane.provider.name);
      const errorEvent = ingress.codec.createStreamEncoder({ streamUsage: false }).encode({ type: 'error', error: failure });
      await res.write(typeof errorEvent === 'string' ? `\n\n${errorEvent}` : errorEvent);
      res.end();
      return { status: 'committed', outcome: 'lane_fault' };
    }
    const verdict = judge(probe.end());
    if (!committed) {
      // The stream ended before any content: an empty or cut stream is a failed attempt.
      if (verdict.kind === 'error') return { status: 'failed', error: verdict.event.error, outcome: 'lane_fault' };
      attempt.onCommit();
      res.commit(upstream.status, headers);
      await res.write(Buffer.concat(held));
    } else if (verdict.kind === 'error') {
      // The upstream closed cleanly but without its terminator: say so in the client's protocol.
      const errorEvent = ingress.codec.createStreamEncoder({ streamUsage: false }).encode(verdict.event);
      await res.write(typeof errorEvent === 'string' ? `\n\n${errorEvent}` : errorEvent);
      res.end();
      return { status: 'committed', outcome: 'lane_fault' };
    }
    res.end();
    return { status: 'committed', outcome: 'success' };
  } catch (error) {
    return thrownFailure(error, exchange, attempt);
  }
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

function looksLikeJsonObject(body: Buffer): boolean {
  for (const byte of body) {
    if (byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09) continue;
    return byte === 0x7b; // '{'
  }
  return false;
}
