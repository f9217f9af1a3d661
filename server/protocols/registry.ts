import type { ProtocolId } from '../ir/index.ts';
import { anthropicCodec } from './anthropic/index.ts';
import type { ProtocolCodec } from './codec.ts';
import { openaiCodec } from './openai/index.ts';

/** The codecs built into this binary. A protocol without one is refused at config load. */
const CODECS: Partial<Record<ProtocolId, ProtocolCodec>> = {
  openai: openaiCodec,
  anthropic: anthropicCodec,
};

export function codecFor(protocol: ProtocolId): ProtocolCodec | undefined {
  return CODECS[protocol];
}

export function supportedProtocols(): ProtocolId[] {
  return Object.keys(CODECS) as ProtocolId[];
}
