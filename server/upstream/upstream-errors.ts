import { GatewayFailure, gatewayError, type GatewayError } from '../ir/index.ts';

/** An upstream that took too long: to connect (a new connection, TLS included), to send its headers, or between two pieces of its body. */
export class UpstreamTimeoutError extends Error {
  readonly code: string;
  readonly phase: 'connect' | 'headers' | 'idle';
  constructor(phase: 'connect' | 'headers' | 'idle') {
    super(phase === 'connect' ? 'connect timeout' : phase === 'headers' ? 'headers timeout' : 'body idle timeout');
    this.name = 'UpstreamTimeoutError';
    this.phase = phase;
    this.code = `UPSTREAM_${phase.toUpperCase()}_TIMEOUT`;
  }
}

/** A request stopped by the gateway (its reader let go, or an abort without a reason). */
export class UpstreamAbortedError extends Error {
  readonly code = 'UPSTREAM_ABORTED';
  constructor() {
    super('request aborted');
    this.name = 'UpstreamAbortedError';
  }
}

/** A request that got no answer: a timeout, or an upstream that could not be reached. */
export function describeNetworkError(error: unknown, providerName: string): GatewayError {
  if (error instanceof UpstreamTimeoutError) {
    return error.phase === 'connect'
      ? gatewayError('timeout', `could not connect to upstream ${providerName} in time`, { status: 504, code: 'upstream_connect_timeout' })
      : gatewayError('timeout', `upstream ${providerName} did not answer in time`, { status: 504, code: 'upstream_timeout' });
  }
  const code = (error as { code?: string }).code;
  return gatewayError('server', `upstream ${providerName} is unreachable${code ? ` (${code})` : ''}`, { status: 502, code: 'upstream_unreachable' });
}

/**
 * A failure while reading a response body the upstream had begun: its framing refused by a framer
 * (a GatewayFailure, e.g. an endless line), a timeout, or the connection closed before the end
 * (the connection says ECONNRESET), which is said as such (not as "unreachable": the
 * upstream was reached and answered).
 */
export function describeBodyError(error: unknown, providerName: string, what: 'stream' | 'answer'): GatewayError {
  if (error instanceof GatewayFailure) return error.error;
  const code = (error as { code?: string }).code;
  if (code === 'ECONNRESET' || code === 'EPIPE') {
    return gatewayError('server', `upstream ${providerName} closed the connection before the end of its ${what}`, { status: 502, code: 'upstream_closed' });
  }
  return describeNetworkError(error, providerName);
}
