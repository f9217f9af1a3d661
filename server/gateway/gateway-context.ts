import type { IncomingMessage } from 'node:http';
import type { Dispatcher } from 'undici';
import type { RuntimeConfig } from '../config/runtime-config.ts';
import type { Logger } from '../observability/logger.ts';
import type { ClientResponse } from './client-response.ts';
import type { Ingress } from './ingress.ts';

/** What every request shares: the running configuration and the upstream connection pools. */
export interface Gateway {
  readonly config: RuntimeConfig;
  readonly dispatcher: Dispatcher;
  readonly log: Logger;
}

/** One client request on its way through the pipeline. */
export interface Exchange {
  readonly gateway: Gateway;
  readonly req: IncomingMessage;
  readonly res: ClientResponse;
  readonly ingress: Ingress;
  /** Model named in the path (`/{model}/v1/messages`); it wins over the body's. */
  readonly pathModel: string | undefined;
  readonly requestId: string;
  /** Aborted when the client disconnects: the upstream call is cancelled with it. */
  readonly signal: AbortSignal;
  readonly log: Logger;
}
