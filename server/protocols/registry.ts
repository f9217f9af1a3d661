import { anthropicProtocol } from './anthropic/index.ts';
import { bedrockProtocol } from './bedrock/index.ts';
import { cohereProtocol } from './cohere/index.ts';
import type { ProtocolCodec } from './codec.ts';
import type { ProtocolDefinition } from './definition.ts';
import { geminiProtocol } from './gemini/index.ts';
import { openaiProtocol } from './openai/index.ts';
import { responsesProtocol } from './responses/index.ts';

/**
 * The wire protocols built into this binary, one line each: a protocol is its folder (whose
 * index.ts declares everything about it) and its line here. The route table, the fast path, the
 * ingress table, the error shape of unrouted paths, the span attribute names and `ProtocolId` are
 * all derived from this list. Order matters where paths could overlap: routes are registered, and
 * unrouted paths claimed, in this order.
 */
export const PROTOCOLS = [openaiProtocol, responsesProtocol, anthropicProtocol, geminiProtocol, bedrockProtocol, cohereProtocol] as const;

export type ProtocolId = (typeof PROTOCOLS)[number]['id'];
export const PROTOCOL_IDS: readonly ProtocolId[] = PROTOCOLS.map((p) => p.id);

/** Whose error shape a path that no protocol claims, and no protocol header marks, is answered in. */
export const DEFAULT_PROTOCOL: ProtocolId = 'openai';

const BY_ID = new Map<string, ProtocolDefinition<ProtocolId>>(PROTOCOLS.map((p) => [p.id, p]));

export function protocolDefinition(protocol: ProtocolId): ProtocolDefinition<ProtocolId> {
  return BY_ID.get(protocol)!;
}

/** The codec of a protocol; undefined for a name that is none (config is checked against supportedProtocols). */
export function codecFor(protocol: ProtocolId): ProtocolCodec | undefined {
  return BY_ID.get(protocol)?.codec;
}

export function supportedProtocols(): ProtocolId[] {
  return [...PROTOCOL_IDS];
}
