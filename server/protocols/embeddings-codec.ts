import type { IncomingHttpHeaders } from 'node:http';
import type { EmbeddingInputType, EmbeddingsRequest, EmbeddingsResponse, ProtocolId } from '../ir/index.ts';
import type { TranslationWarning } from './codec.ts';

/** What a lane adds to an embeddings request: its upstream model and the operator's input type. */
export interface EmbeddingLane {
  readonly model: string;
  /** Sent where the upstream requires an input type and the client's protocol has none (config `embedding_input_type`). */
  readonly inputType: EmbeddingInputType;
}

/** Where the route named things the body does not. */
export interface EmbeddingsOrigin {
  readonly pathModel?: string;
  /** Gemini `embedContent` (one vector) or `batchEmbedContents`; Cohere `v1` or `v2`. */
  readonly shape?: string;
}

/** One upstream call: its path below the provider's base URL and its JSON body. */
export interface EmbeddingsCall {
  readonly path: string;
  readonly body: string | Buffer;
}

/**
 * One protocol's embeddings wire format, both ways. The gateway translates through the IR
 * (`ir/embeddings.ts`) between any two protocols that have one; the same protocol forwards bytes.
 */
export interface EmbeddingsCodec {
  readonly protocol: ProtocolId;
  /** Texts one upstream call may carry on this model (a larger request is split and merged back in order). */
  batchLimit(upstreamModel: string): number;
  /** The client's request as IR; throws a 400 naming the field for a bad request. */
  decodeRequest(body: Record<string, unknown>, origin: EmbeddingsOrigin): EmbeddingsRequest;
  /** One upstream call for a batch of the request's texts; throws a 400 when the lane cannot express the request. */
  encodeRequest(request: EmbeddingsRequest, lane: EmbeddingLane): { call: EmbeddingsCall; warnings: readonly TranslationWarning[] };
  /** The upstream's answer to one call as IR (the vectors of that batch, in order). */
  decodeResponse(body: Record<string, unknown>, headers: IncomingHttpHeaders): EmbeddingsResponse;
  /** The answer in the client's wire format; `inputTokens` is what the client is told (reported or estimated). */
  encodeResponse(
    response: EmbeddingsResponse,
    request: EmbeddingsRequest,
    context: { model: string; inputTokens: number },
  ): { body: string; headers: Record<string, string> };
  /**
   * Can the client's bytes go to this upstream model as they are? Absent: always, within the
   * protocol. Bedrock: only when the model takes the body the client sent (Titan or Cohere);
   * otherwise the request is translated between the two bodies.
   */
  forwards?(request: EmbeddingsRequest, upstreamModel: string): boolean;
  /** Same protocol: the client's bytes for the lane, only the model rewritten (in the body or the path). */
  forward(raw: Buffer, json: Record<string, unknown>, origin: EmbeddingsOrigin, lane: EmbeddingLane): EmbeddingsCall;
  /** Input tokens of a same-protocol answer (in the pieces it was read in), found without parsing or joining it; undefined when it reports none. */
  reportedTokens(body: readonly Buffer[], headers: IncomingHttpHeaders): number | undefined;
}
