import type { ModelRoute } from '../config/runtime-config.ts';
import type { GatewayError } from '../ir/index.ts';
import type { Outcome } from '../routing/outcome.ts';
import type { AbortWatch } from '../upstream/abort-watch.ts';

/** An upstream's error in the client's own protocol, relayed verbatim if it becomes the final answer. */
export interface RelayedError {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: Buffer;
}

/**
 * How one attempt on one lane ended. `committed`: the client has its answer (the stream may have
 * ended in an error event after content, a lane fault). `failed`: nothing reached the client, so
 * another lane may be tried. `client_gone`: the client disconnected; nothing is recorded against the lane (a request that
 * reached the upstream is still settled, by the attempt or by failover).
 */
export type AttemptResult =
  | { readonly status: 'committed'; readonly outcome: 'success' | 'lane_fault' }
  | { readonly status: 'failed'; readonly error: GatewayError; readonly outcome: Outcome; readonly relay?: RelayedError }
  | { readonly status: 'client_gone' };

/**
 * What an attempt needs beyond the exchange: the lane, and its own abort signal and timers. Its
 * abort is also watched directly (AbortWatch), as the upstream call does, without a listener on the signal.
 */
export interface AttemptContext extends AbortWatch {
  readonly lane: ModelRoute;
  /** Aborted by the client leaving or by this attempt's first-byte timer. */
  readonly signal: AbortSignal;
  /** Call at commit: the first-byte timer no longer applies. */
  readonly onCommit: () => void;
  /**
   * Call just before the request goes to the upstream: from then on the upstream may bill it, so
   * a client that leaves is settled (ClientResponse.abandon), never refunded.
   */
  readonly onSend: () => void;
}
