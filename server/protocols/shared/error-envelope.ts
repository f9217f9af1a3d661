import type { GatewayError } from '../../ir/index.ts';
import type { ErrorEnvelope } from '../codec.ts';

/**
 * Every protocol's HTTP error answer: its status, the protocol's JSON body, the protocol's headers,
 * and Retry-After (whole seconds, rounded up) whenever the error says when to come back.
 */
export function errorEnvelope(error: GatewayError, body: unknown, headers: Record<string, string> = { 'content-type': 'application/json' }): ErrorEnvelope {
  if (error.retryAfterSeconds !== undefined) headers['retry-after'] = String(Math.ceil(error.retryAfterSeconds));
  return { status: error.status, body: JSON.stringify(body), headers };
}
