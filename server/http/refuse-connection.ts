import type { IncomingMessage, ServerResponse } from 'node:http';
import { INGRESS } from '../gateway/ingress.ts';
import { gatewayError } from '../ir/index.ts';
import { guessProtocol } from './guess-protocol.ts';

/** Seconds a refused client is told to wait: connections free up as requests finish. */
const RETRY_AFTER_SECONDS = 1;

/**
 * The answer on a connection accepted beyond `server.max_connections`: 503 with Retry-After, in
 * the protocol the client evidently speaks, and the connection closes after it.
 */
export function refuseConnection(req: IncomingMessage, res: ServerResponse): void {
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const envelope = INGRESS[guessProtocol(q < 0 ? url : url.slice(0, q), req.headers)].codec.encodeError(
    gatewayError('unavailable', 'the gateway is at its connection limit; retry shortly', { status: 503, code: 'too_many_connections' }),
  );
  res.writeHead(envelope.status, {
    ...envelope.headers,
    'content-length': String(Buffer.byteLength(envelope.body)),
    'retry-after': String(RETRY_AFTER_SECONDS),
    connection: 'close',
  });
  res.end(envelope.body);
  req.resume(); // an unread body must not hold the socket open
}
