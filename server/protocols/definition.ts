import type { ValidateFunction } from 'ajv';
import type { Operation } from '../ir/operation.ts';
import type { ProtocolCodec, RequestOrigin } from './codec.ts';
import type { EmbeddingsCodec } from './embeddings-codec.ts';
import type { CountEndpointFor } from './shared/count-endpoint.ts';

/** Path parameters as the router gives them (percent-decoded). */
export type RouteParams = Readonly<Record<string, string>>;
/** The query string, parsed (a repeated name gives an array). */
export type RouteQuery = Readonly<Record<string, string | string[] | undefined>>;

/** One data-plane route a client of this protocol calls. */
export interface ProtocolRoute {
  readonly method: 'POST' | 'GET';
  /** A router path pattern: fixed (`/v1/chat/completions`) or with parameters (`/model/:modelId/converse`). */
  readonly path: string;
  readonly operation: Operation;
  /**
   * What the path and query say that the body does not (model, streaming, framing); undefined
   * when the request is not this route's after all (Gemini's `:action` segment names the method),
   * so the next route on the same pattern is tried (on the fast path too, http/param-routes.ts).
   * Absent: the body carries the model and the stream flag, and a fixed path is then served on the
   * fast path (http/fast-routes.ts).
   */
  readonly origin?: (params: RouteParams, query: RouteQuery) => RequestOrigin | undefined;
}

/**
 * Everything the gateway knows about one wire protocol, declared in its folder's index.ts and
 * listed once in registry.ts: the route table, the ingress table, the unrouted-error guess and the
 * span attribute names are all derived from these.
 */
export interface ProtocolDefinition<Id extends string = string> {
  readonly id: Id;
  /** Both directions of the chat translation (and the error envelope every route of this protocol answers with). */
  readonly codec: ProtocolCodec;
  /** Request schemas by operation (generated from spec/); `chat` is required. */
  readonly validators: { readonly chat: ValidateFunction } & { readonly [O in Operation]?: ValidateFunction };
  /** Client headers that belong to the protocol (not the account) and go upstream on the same-protocol path. */
  readonly forwardedHeaders: readonly string[];
  /** Response headers of a translated stream in this protocol's framing. */
  streamHeaders(origin: RequestOrigin): Readonly<Record<string, string>>;
  /** The routes its clients call, by operation. Registered in list order (a path pattern shared by two routes: first one first). */
  readonly routes: readonly ProtocolRoute[];
  /** Operations a lane of this protocol can be sent (a request for another one is refused naming it). */
  readonly upstreamOperations: readonly Operation[];
  /** Its provider's input-token count endpoint (`count_tokens` among upstreamOperations); absent: a count on its lanes is an estimate. */
  readonly countEndpoint?: CountEndpointFor;
  /**
   * Does a path that matched no route belong to this protocol? (Its 404 or 405 is then written in
   * this protocol's error shape: see http/guess-protocol.ts.) Checked in registry order.
   */
  claimsPath(path: string): boolean;
  /** A request header only this protocol's clients send, for paths no protocol claims. */
  readonly claimsHeader?: string;
  /** Its embeddings wire format, when it has one (both directions; same-protocol forwarding too). */
  readonly embeddings?: EmbeddingsCodec;
  /** The catalog provider that speaks this protocol first-hand, and its `gen_ai.provider.name`. */
  readonly genAi: { readonly catalogProvider: string; readonly providerName: string };
}
