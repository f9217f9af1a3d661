import type { ProtocolId } from '../../ir/index.ts';
import type { EmbeddingsCodec } from '../../protocols/embeddings-codec.ts';
import { openaiEmbeddings } from '../../protocols/openai/embeddings.ts';

/** The protocols that have embeddings, each with its wire format. */
const EMBEDDINGS: Partial<Record<ProtocolId, EmbeddingsCodec>> = {
  openai: openaiEmbeddings,
};

export function embeddingsCodecFor(protocol: ProtocolId): EmbeddingsCodec | undefined {
  return EMBEDDINGS[protocol];
}
