import { GatewayFailure, gatewayError } from '../ir/index.ts';

/**
 * The longest piece of an upstream stream a framer holds while waiting for its end: an SSE line
 * or event, one element of Gemini's JSON array (AWS event-stream frames have their own cap,
 * 16 MiB of payload, in eventstream-splitter.ts). Counted in characters, which for the JSON events
 * carry is bytes. Real events stay far below it, base64 images included; an upstream that writes
 * one endless line is cut here instead of taking the gateway's memory.
 */
export const MAX_STREAM_EVENT_CHARS = 16 * 1024 * 1024;

/** Thrown by a framer past the limit: the attempt fails as a lane fault (failover, or the error event). */
export function streamEventTooLarge(what: string): GatewayFailure {
  return new GatewayFailure(
    gatewayError('server', `the upstream sent a stream ${what} longer than ${MAX_STREAM_EVENT_CHARS / (1024 * 1024)} MiB`, {
      status: 502,
      code: 'upstream_event_too_large',
    }),
  );
}
