import type { IncomingMessage } from 'node:http';
import type { RuntimeConfig } from '../config/runtime-config.ts';
import type { Governance } from '../governance/governance.ts';
import type { GateHook } from '../hooks/gate-hook.ts';
import type { Clock } from '../shared/clock.ts';
import type { Dispatchers } from '../upstream/dispatchers.ts';
import type { MediaFetcher } from '../media/media-fetcher.ts';
import type { RoutingTable } from './routing-table.ts';
import type { Logger } from '../shared/logger.ts';
import type { RequestsInFlight } from '../observability/requests-in-flight.ts';
import type { TranslationStats } from '../observability/translation-stats.ts';
import type { RequestObserver } from '../observability/request-record.ts';
import type { RequestOrigin } from '../protocols/codec.ts';
import type { ClientGone } from './client-gone.ts';
import type { ClientResponse } from './client-response.ts';
import type { Ingress } from './ingress.ts';
import type { RequestMeter } from './request-meter.ts';
import type { ContentCapture } from './content-capture.ts';

/** What every request shares: the running configuration, routing state and upstream connection pools. */
export interface Gateway {
  readonly config: RuntimeConfig;
  readonly routing: RoutingTable;
  readonly dispatchers: Dispatchers;
  /** Fetches image URLs for lanes that take bytes only (config `media_fetch:`). */
  readonly media: MediaFetcher;
  readonly clock: Clock;
  readonly log: Logger;
  readonly translations: TranslationStats;
  /** Keys, budgets and rate limits; present when db_path is set (enforced when governance is on). */
  readonly governance?: Governance;
  /** Gate hooks (config `hooks:`, kind gate), asked before the first upstream attempt; may be empty. */
  readonly gates: readonly GateHook[];
  /** Chat requests being handled now. */
  readonly inFlight: RequestsInFlight;
  /** Told about every finished chat request (metrics, the request log line, traces, hooks). */
  readonly observers: readonly RequestObserver[];
}

/**
 * The data plane's gateway now. A configuration change replaces `current` whole (a new Gateway with
 * the new configuration and routing table); each request reads it once, when it starts, and keeps
 * that one to its end, so requests in flight finish on the configuration they started with.
 */
export interface LiveGateway {
  readonly current: Gateway;
}

/** One client request on its way through the pipeline. */
export interface Exchange {
  readonly gateway: Gateway;
  readonly req: IncomingMessage;
  readonly res: ClientResponse;
  readonly ingress: Ingress;
  /** What the route itself says: a model in the path (it wins over the body's), a streaming route. */
  readonly origin: RequestOrigin;
  /** The request's query string (Gemini clients may send their key as `?key=`). */
  readonly query: URLSearchParams;
  readonly requestId: string;
  /** Aborted when the client disconnects: the upstream call is cancelled with it. Made on first use. */
  readonly signal: AbortSignal;
  /** Whether the client left, without making `signal`; attempts watch it. */
  readonly clientGone: ClientGone;
  readonly log: Logger;
  /** Notes timings, attempts and the answer for the request's record. */
  readonly meter: RequestMeter;
  /** Prompt and completion, kept only when content capture is on. */
  readonly content?: ContentCapture;
}
