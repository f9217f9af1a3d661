// The mock upstream's flaky mode, for the soak: an upstream model named `flaky-<P>` fails P% of its
// requests, in equal parts a 500 in the protocol's error shape, a connection reset before any
// answer, and a hang (no answer at all, until the gateway gives up on it).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { gatewayError, type ProtocolId } from '../server/ir/index.ts';
import { codecFor } from '../server/protocols/registry.ts';

const FLAKY_PATTERN = /flaky-(\d{1,3})/;

export type Fault = 'status_500' | 'reset' | 'hang';
const FAULTS: readonly Fault[] = ['status_500', 'reset', 'hang'];

/** The fault this request gets, if its model is a flaky one and the draw says so. */
export function drawFault(path: string, body: Buffer): Fault | undefined {
  const found = FLAKY_PATTERN.exec(path) ?? (body.includes('flaky-') ? FLAKY_PATTERN.exec(body.toString('utf8')) : null);
  if (found === null || Math.random() * 100 >= Number(found[1])) return undefined;
  return FAULTS[Math.floor(Math.random() * FAULTS.length)];
}

/** Acts the fault out: the answer (or the lack of one) a failing provider gives. */
export function serveFault(fault: Fault, protocol: ProtocolId, req: IncomingMessage, res: ServerResponse): void {
  if (fault === 'reset') return void req.socket.destroy();
  if (fault === 'hang') return; // the gateway's first-byte timeout ends it by closing the connection
  const envelope = codecFor(protocol)!.encodeError(
    gatewayError('server', 'The server had an error while processing your request.', { status: 500, code: 'internal_error' }),
  );
  res.writeHead(500, envelope.headers).end(envelope.body);
}
