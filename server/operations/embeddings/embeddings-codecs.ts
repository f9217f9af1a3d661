import type { ProtocolId } from '../../ir/index.ts';
import type { EmbeddingsCodec } from '../../protocols/embeddings-codec.ts';
import { protocolDefinition } from '../../protocols/registry.ts';

/** A protocol's embeddings wire format, as its folder declares it (undefined: it has none). */
export function embeddingsCodecFor(protocol: ProtocolId): EmbeddingsCodec | undefined {
  return protocolDefinition(protocol).embeddings;
}
