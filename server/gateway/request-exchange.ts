import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestOrigin } from '../protocols/codec.ts';
import type { ProtocolId } from '../ir/index.ts';
import type { Logger } from '../shared/logger.ts';
import { ClientGone } from './client-gone.ts';
import { ClientResponse } from './client-response.ts';
import { ContentCapture } from './content-capture.ts';
import type { Exchange, Gateway } from './gateway-context.ts';
import { INGRESS, type Ingress } from './ingress.ts';
import { RequestMeter } from './request-meter.ts';

/**
 * A request's exchange as a class: one object of one shape, with what most requests never read
 * (the query's parameters, the abort signal, the request's child logger) made on first use.
 */
export class RequestExchange implements Exchange {
  readonly gateway: Gateway;
  readonly req: IncomingMessage;
  readonly res: ClientResponse;
  readonly ingress: Ingress;
  readonly origin: RequestOrigin;
  readonly requestId: string;
  readonly meter: RequestMeter;
  readonly clientGone: ClientGone;
  readonly content: ContentCapture | undefined;
  private readonly protocol: ProtocolId;
  private readonly rawQuery: string;
  private params: URLSearchParams | undefined;
  private logger: Logger | undefined;

  constructor(gateway: Gateway, req: IncomingMessage, res: ServerResponse, protocol: ProtocolId, origin: RequestOrigin, rawQuery: string, requestId: string) {
    this.gateway = gateway;
    this.req = req;
    this.res = new ClientResponse(res, { 'x-request-id': requestId });
    this.ingress = INGRESS[protocol];
    this.origin = origin;
    this.requestId = requestId;
    this.meter = new RequestMeter();
    const { traceparent } = req.headers;
    if (typeof traceparent === 'string' && traceparent.length <= 128) this.meter.traceparent = traceparent; // parsed (or ignored) by the trace exporter
    this.clientGone = new ClientGone(res);
    this.content = gateway.config.otlp?.captureContent === true && gateway.config.otlp.traces ? new ContentCapture() : undefined;
    this.protocol = protocol;
    this.rawQuery = rawQuery;
  }

  /** The request's query string (Gemini clients may send their key as `?key=`). */
  get query(): URLSearchParams {
    return (this.params ??= new URLSearchParams(this.rawQuery));
  }

  get signal(): AbortSignal {
    return this.clientGone.signal;
  }

  /** A pino child (with its redaction setup) costs more than most requests need. */
  get log(): Logger {
    return (this.logger ??= this.gateway.log.child({ requestId: this.requestId, protocol: this.protocol }));
  }
}
