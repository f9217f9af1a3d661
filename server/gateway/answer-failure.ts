import { GatewayFailure, gatewayError } from '../ir/index.ts';
import { closeUnread } from './close-unread.ts';
import type { Exchange } from './gateway-context.ts';
import { isStackOverflow, requestTooDeep } from './request-too-deep.ts';

/**
 * A request that ended in a thrown failure, answered in the client's protocol (every operation's
 * pipeline ends here): a GatewayFailure as it says, anything else as a 500 without details.
 * Answered before the body was read, the connection is closed rather than read.
 */
export function answerFailure(exchange: Exchange, error: unknown, bodyRead: boolean): void {
  const { res, meter, ingress } = exchange;
  if (exchange.clientGone.aborted) return; // the client left; there is no one to answer
  if (error instanceof GatewayFailure) {
    meter.error = error.error;
    exchange.log.debug({ status: error.error.status, kind: error.error.kind, code: error.error.code }, error.error.message); // the request line has status, kind and code
    res.sendError(ingress.codec, error.error, bodyRead ? undefined : closeUnread(exchange.req));
    return;
  }
  if (isStackOverflow(error)) {
    meter.error = requestTooDeep();
    res.sendError(ingress.codec, meter.error);
    return;
  }
  exchange.log.error({ err: error }, 'unexpected failure');
  meter.error = gatewayError('server', 'internal gateway error', { code: 'internal_error' });
  res.sendError(ingress.codec, meter.error, bodyRead ? undefined : closeUnread(exchange.req));
}
