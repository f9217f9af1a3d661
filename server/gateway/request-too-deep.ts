import { gatewayError, type GatewayError } from '../ir/index.ts';

/**
 * JSON.parse reads a body of any nesting depth, but re-serialising it (JSON.stringify, a codec's
 * recursive walk) overflows the stack somewhere past a few thousand levels. Such a request is the
 * client's doing: it gets a 400, never a 500, and never counts against a lane. Caught where it
 * happens rather than measured up front, so ordinary requests pay nothing for the rule.
 */
export function isStackOverflow(error: unknown): boolean {
  return error instanceof RangeError && error.message.includes('call stack');
}

export function requestTooDeep(): GatewayError {
  return gatewayError('invalid_request', 'the request is nested too deeply for this gateway to process', { code: 'request_too_deep' });
}
