/**
 * The embeddings IR: what every protocol's embeddings request and answer mean, so any client
 * protocol can be served by any upstream protocol that has embeddings (OpenAI, Gemini, Cohere,
 * Bedrock). Types only.
 */

/** How vectors travel to the client: numbers, or base64 of little-endian float32 (OpenAI's). */
export type EmbeddingEncoding = 'float' | 'base64';

/** What the texts are for (Cohere `input_type`, Gemini `taskType`); retrieval models embed queries and documents differently. */
export type EmbeddingInputType = 'search_document' | 'search_query' | 'classification' | 'clustering';

export interface EmbeddingsRequest {
  /** The model named in the body (OpenAI, Cohere); path-routed protocols name it in the path. */
  readonly model?: string;
  /** One vector is answered per text, in this order. */
  readonly inputs: readonly string[];
  /**
   * Inputs the IR cannot carry (OpenAI token ids, Cohere images): only the client's own protocol
   * can be sent them (same-protocol forwarding); another lane refuses with a 400 naming the field.
   */
  readonly untranslatable?: { readonly field: string; readonly why: string };
  readonly encoding: EmbeddingEncoding;
  /** Output dimensions (OpenAI `dimensions`, Gemini `outputDimensionality`, Cohere `output_dimension`, Titan `dimensions`). */
  readonly dimensions?: number;
  /** Absent: the lane's `embedding_input_type` where the upstream needs one (Cohere). */
  readonly inputType?: EmbeddingInputType;
  /** Cohere's `truncate` (NONE, START, END); the others refuse or truncate as they do. */
  readonly truncate?: 'none' | 'start' | 'end';
  /** Titan's `normalize` (default true); the other providers normalize always. */
  readonly normalize?: boolean;
  /**
   * The client's wire variant within its protocol, for answering in the same shape: Gemini
   * `single` (embedContent) or `batch`; Bedrock `titan` or `cohere` body; Cohere `v1` or `v2`.
   */
  readonly shape?: string;
  /** The embedding types a Cohere-shaped client asked for (Cohere, Bedrock Cohere, Titan `embeddingTypes`), answered each. */
  readonly embeddingTypes?: readonly string[];
}

export interface EmbeddingsResponse {
  /** One vector per input, in the request's order. */
  readonly vectors: readonly (readonly number[])[];
  /** Input tokens the upstream reported; null when it reported none (the gateway then estimates). */
  readonly inputTokens: number | null;
}
