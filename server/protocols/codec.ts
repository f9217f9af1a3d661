import type { ChatRequest, ChatResponse, GatewayError, ProtocolId, StreamEvent } from '../ir/index.ts';
import type { SseEvent } from '../framing/sse-parser.ts';

/** A warning about something a translation could not carry; sent as `x-gateway-warnings` and logged. */
export interface TranslationWarning {
  readonly kind: string;
  /** The request or response field concerned, e.g. `messages[3].content[0].detail`. */
  readonly path: string;
  readonly message: string;
}

/** What the client side needs besides the IR to answer in its protocol. */
export interface ClientContext {
  /** Did the client ask for usage on its stream? (OpenAI `stream_options.include_usage`.) */
  readonly streamUsage: boolean;
  /** Gemini streams without `alt=sse` as one JSON array written piece by piece, not SSE. */
  readonly jsonArrayStream?: boolean;
  /**
   * The request side's warnings (already in `x-gateway-warnings`): a stream encoder lists them with
   * its own just before the stream's terminator, where a streaming client can read them.
   */
  readonly warnings?: readonly TranslationWarning[];
  /** Names of the request's freeform tools: a Responses client gets their calls as custom_tool_call items. */
  readonly freeformTools?: ReadonlySet<string>;
}

/** Where the request named things the body does not (Gemini and Bedrock put them in the path). */
export interface RequestOrigin {
  readonly pathModel?: string;
  /** The route itself says stream (`:streamGenerateContent`, `/converse-stream`). */
  readonly pathStream?: boolean;
  /** Gemini's `:streamGenerateContent` without `alt=sse`: the answer is one JSON array, written piecewise. */
  readonly jsonArrayStream?: boolean;
  /** Which of an operation's wire variants the route is: Gemini `single` (embedContent) or `batch`; Cohere embed `v1` or `v2`. */
  readonly variant?: string;
}

/** An upstream's error answer, as received. */
export interface UpstreamErrorResponse {
  readonly status: number;
  readonly bodyText: string;
  /** Lower-case names (Bedrock's error type travels in `x-amzn-errortype`). */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly retryAfterSeconds: number | undefined;
}

/** Text for SSE protocols, bytes for binary framings (Bedrock's event stream). */
export type WireChunk = string | Uint8Array;

/** What the upstream side needs besides the IR to build a request for one lane. */
export interface LaneContext {
  /** The upstream model name for this lane. */
  readonly model: string;
  /** Output-token default for protocols that require max tokens (config, then catalog, then ours). */
  readonly defaultMaxTokens: number;
}

export interface EncodedRequest {
  readonly body: Record<string, unknown>;
  readonly warnings: readonly TranslationWarning[];
}

export interface EncodedResponse {
  readonly body: Record<string, unknown>;
  readonly warnings: readonly TranslationWarning[];
}

/** Wire bytes to IR events, fed in arbitrary chunks (a network splits frames anywhere). */
export interface StreamDecoder {
  push(chunk: Uint8Array): StreamEvent[];
  /** An SSE framing's decoder: events framed already (the stream tail's), not formatted and framed again. */
  pushEvents?(events: readonly SseEvent[]): StreamEvent[];
  /**
   * A decoder for this stream's last events (the stream tail's end read) that starts from what
   * this one learned of the stream's repeated shape, so it does not parse an event to learn it
   * again (OpenAI's text chunk template). Without it the tail's decoder is a new one.
   */
  forStreamEnd?(): StreamDecoder;
  /** The upstream closed; flush what is pending. */
  end(): StreamEvent[];
}

/** IR events to wire chunks; one encoder per response, it keeps the state the protocol needs. */
export interface StreamEncoder {
  /** The wire form of one event ('' when the event has none in this protocol). */
  encode(event: StreamEvent): WireChunk;
  readonly warnings: readonly TranslationWarning[];
}

export interface ErrorEnvelope {
  readonly status: number;
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** The client-facing half: how a protocol is spoken to clients (ingress). */
export interface IngressCodec {
  readonly id: ProtocolId;
  /** Wire request (already schema-validated) to IR. Throws GatewayFailure for what the IR cannot hold. */
  decodeRequest(body: Record<string, unknown>, origin: RequestOrigin): ChatRequest;
  encodeResponse(response: ChatResponse, client: ClientContext): EncodedResponse;
  createStreamEncoder(client: ClientContext): StreamEncoder;
  /** The protocol's HTTP error envelope for any error, the gateway's own or an upstream's. */
  encodeError(error: GatewayError): ErrorEnvelope;
}

/** The upstream-facing half: how a protocol is spoken to providers (egress). */
export interface EgressCodec {
  readonly id: ProtocolId;
  /**
   * Path below the provider's base_url for a chat request. `origin` is given on the same-protocol
   * path, so the upstream is asked for exactly the framing the client asked for.
   */
  upstreamPath(model: string, stream: boolean, origin?: RequestOrigin): string;
  /**
   * Does the request body name the model? (Gemini and Bedrock name it in the path, and Bedrock
   * refuses unknown members, so the same-protocol path must not add one.)
   */
  readonly bodyCarriesModel: boolean;
  /** Pure: the same IR and lane always give the same body. */
  encodeRequest(request: ChatRequest, lane: LaneContext): EncodedRequest;
  decodeResponse(body: Record<string, unknown>): ChatResponse;
  createStreamDecoder(): StreamDecoder;
  /** An upstream error response to the IR error, keeping its status. */
  decodeError(response: UpstreamErrorResponse): GatewayError;
}

export interface ProtocolCodec extends IngressCodec, EgressCodec {}
