import type { ProtocolId } from '../ir/index.ts';
import { anthropicCodec } from './anthropic/index.ts';
import { bedrockCodec } from './bedrock/index.ts';
import type { ProtocolCodec } from './codec.ts';
import { cohereCodec } from './cohere/index.ts';
import { geminiCodec } from './gemini/index.ts';
import { openaiCodec } from './openai/index.ts';
import { responsesCodec } from './responses/index.ts';

/** The codecs built into this binary. A protocol without one is refused at config load. */
const CODECS: Record<ProtocolId, ProtocolCodec | undefined> = {
  openai: openaiCodec,
  responses: responsesCodec,
  anthropic: anthropicCodec,
  gemini: geminiCodec,
  bedrock: bedrockCodec,
  cohere: cohereCodec,
};

export function codecFor(protocol: ProtocolId): ProtocolCodec | undefined {
  return CODECS[protocol];
}

export function supportedProtocols(): ProtocolId[] {
  return (Object.keys(CODECS) as ProtocolId[]).filter((id) => CODECS[id] !== undefined);
}
