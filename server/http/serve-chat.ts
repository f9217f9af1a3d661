import type { IncomingMessage, ServerResponse } from 'node:http';
import { clientGoneSignal } from '../gateway/client-gone.ts';
import { ClientResponse } from '../gateway/client-response.ts';
import type { Exchange, Gateway } from '../gateway/gateway-context.ts';
import { ContentCapture } from '../gateway/content-capture.ts';
import { handleChat } from '../gateway/handle-chat.ts';
import { INGRESS } from '../gateway/ingress.ts';
import type { OperationCall } from './operation-handlers.ts';
import { RequestMeter } from '../gateway/request-meter.ts';
import { gatewayError, type ProtocolId } from '../ir/index.ts';
import type { Logger } from '../shared/logger.ts';

/**
 * One chat request handed to the pipeline, which writes the response itself (it decides when to
 * commit). Called from the Koa routes and from the fast path for fixed chat paths (fast-routes.ts).
 */
export async function serveChat(gateway: Gateway, req: IncomingMessage, res: ServerResponse, call: OperationCall): Promise<void> {
  await handleChat(newExchange(gateway, req, res, call));
}

/** A request's exchange, as every operation's pipeline takes it. */
export function newExchange(gateway: Gateway, req: IncomingMessage, res: ServerResponse, call: OperationCall): Exchange {
  const { protocol, requestId } = call;
  const meter = new RequestMeter();
  const { traceparent } = req.headers;
  if (typeof traceparent === 'string' && traceparent.length <= 128) meter.traceparent = traceparent; // parsed (or ignored) by the trace exporter
  const ingress = INGRESS[protocol];
  let log: Logger | undefined;
  return {
    gateway,
    req,
    res: new ClientResponse(res, { 'x-request-id': requestId }),
    ingress,
    origin: call.origin,
    query: new URLSearchParams(call.query),
    requestId,
    signal: clientGoneSignal(res),
    // Made on first use: a pino child (with its redaction setup) costs more than most requests need.
    get log() {
      return (log ??= gateway.log.child({ requestId, protocol }));
    },
    meter,
    ...(gateway.config.otlp?.captureContent === true && gateway.config.otlp.traces && { content: new ContentCapture() }),
  };
}

/** The last line of defence for a fast-path request (any operation): an exception outside the pipeline's own handling. */
export function answerUnexpected(gateway: Gateway, res: ServerResponse, protocol: ProtocolId, requestId: string, error: unknown): void {
  gateway.log.error({ err: error, requestId }, 'unexpected data plane failure');
  if (res.headersSent) return void res.destroy();
  const envelope = INGRESS[protocol].codec.encodeError(gatewayError('server', 'internal gateway error', { code: 'internal_error' }));
  res.writeHead(envelope.status, { ...envelope.headers, 'x-request-id': requestId });
  res.end(envelope.body);
}
