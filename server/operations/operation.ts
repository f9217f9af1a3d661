import type { Operation } from '../config/runtime-config.ts';
import type { OperationPricing } from '../gateway/admission.ts';
import type { Attempt } from '../gateway/failover.ts';
import type { BodyHold } from '../gateway/body-memory.ts';
import type { Exchange } from '../gateway/gateway-context.ts';

/**
 * How an operation other than chat is declared (CONTRACT for embeddings, moderations, images,
 * audio, rerank): the generic pipeline (`handle-operation.ts`) does everything else the same for
 * every operation — the key and its rate limit, the bounded body read (413), the model or pool
 * and the operations its lanes serve (400), the reservation and settlement at the operation's
 * price, gate hooks, failover with breakers, concurrency slots and timeouts, the client's
 * error shape, the request record (`operation` in it, in /metrics and in spans) and webhooks.
 *
 * A route declares its operation with one object, handed to `serveOperation(gateway, req, res,
 * call, declaration)` (`http/serve-operation.ts`).
 */
export interface OperationDeclaration {
  readonly operation: Operation;
  /**
   * The request body read (already bounded by `limits.max_request_bytes`) → what the pipeline
   * needs of it. Throws a `GatewayFailure` 400 naming the field for a bad request; it is
   * answered in the client's protocol.
   */
  prepare?(exchange: Exchange, body: Buffer): PreparedOperation;
  /**
   * Instead of `prepare`, for an upload that streams through (multipart audio and images): reads
   * the request only as far as it must (its model), bounded by `limit` (413) and held in `hold`;
   * each attempt then sends the rest as it arrives (operations/multipart/).
   */
  prepareUpload?(exchange: Exchange, limit: number, hold: BodyHold): Promise<PreparedOperation>;
}

export interface PreparedOperation {
  /** The model or pool the request names (body or path); undefined: none (400). */
  readonly model: string | undefined;
  /** What gate hooks with `include_content` are shown: the parsed request. */
  readonly gateBody: unknown;
  /** The reservation's worst case and the settlement at the operation's price. */
  readonly pricing: OperationPricing;
  /**
   * Readies the request for one lane and returns its run: the same protocol forwards the client's
   * bytes (`forwardWhole`), another translates (`translateWhole`), both in `whole-answer.ts` for
   * answers that are not streamed. Throws a 400 when the lane's protocol cannot express the
   * request (the lane is skipped; the 400 is the answer when no lane can).
   */
  readonly attempt: Attempt;
}
