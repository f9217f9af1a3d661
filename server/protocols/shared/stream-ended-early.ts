import { gatewayError, type StreamEvent } from '../../ir/index.ts';

/** The upstream closed its stream without the protocol's terminator: say so, never end cleanly. */
export function streamEndedEarly(protocol: string): StreamEvent {
  return {
    type: 'error',
    error: gatewayError('server', `the ${protocol} upstream closed the stream before it was complete`, { status: 502, code: 'upstream_stream_truncated' }),
  };
}
