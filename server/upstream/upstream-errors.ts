import { errors } from 'undici';
import { GatewayFailure, gatewayError, type GatewayError } from '../ir/index.ts';

/** A request that got no answer: a timeout, or an upstream that could not be reached. */
export function describeNetworkError(error: unknown, providerName: string): GatewayError {
  if (error instanceof errors.HeadersTimeoutError || error instanceof errors.BodyTimeoutError) {
    return gatewayError('timeout', `upstream ${providerName} did not answer in time`, { status: 504, code: 'upstream_timeout' });
  }
  if (error instanceof errors.ConnectTimeoutError) {
    return gatewayError('timeout', `could not connect to upstream ${providerName} in time`, { status: 504, code: 'upstream_connect_timeout' });
  }
  const code = (error as { code?: string }).code;
  return gatewayError('server', `upstream ${providerName} is unreachable${code ? ` (${code})` : ''}`, { status: 502, code: 'upstream_unreachable' });
}

/**
 * A failure while reading a response body the upstream had begun: its framing refused by a framer
 * (a GatewayFailure, e.g. an endless line), a timeout, or the connection closed before the end,
 * which is said as such (not as "unreachable": the upstream was reached and answered).
 */
export function describeBodyError(error: unknown, providerName: string, what: 'stream' | 'answer'): GatewayError {
  if (error instanceof GatewayFailure) return error.error;
  const code = (error as { code?: string }).code;
  if (code === 'UND_ERR_SOCKET' || code === 'ECONNRESET' || code === 'EPIPE') {
    return gatewayError('server', `upstream ${providerName} closed the connection before the end of its ${what}`, { status: 502, code: 'upstream_closed' });
  }
  return describeNetworkError(error, providerName);
}
