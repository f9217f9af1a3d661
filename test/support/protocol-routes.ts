// Where each of the six protocols lives on a test or benchmark upstream: the catalog provider that
// speaks it and the base-URL suffix its paths are built on, and, the other way, the protocol a
// request path belongs to. No dependencies beyond a type, so the benchmark's mock can share it.
import type { ProtocolId } from '../../server/ir/index.ts';

/** Catalog provider per protocol, and the base-URL suffix its SDKs and paths expect. */
export const LANE_PROVIDER: Record<ProtocolId, { readonly name: string; readonly suffix: string }> = {
  openai: { name: 'openai', suffix: '/v1' },
  responses: { name: 'openai-responses', suffix: '/v1' },
  anthropic: { name: 'anthropic', suffix: '' },
  gemini: { name: 'gemini', suffix: '' },
  bedrock: { name: 'bedrock', suffix: '' },
  cohere: { name: 'cohere', suffix: '' },
};

/** The protocol of a request path (without its query string), by the path each API documents. */
export function protocolOfPath(path: string): ProtocolId | undefined {
  if (path.endsWith('/chat/completions')) return 'openai';
  if (path.endsWith('/responses')) return 'responses';
  if (path.endsWith('/v1/messages')) return 'anthropic';
  if (/:(stream)?[gG]enerateContent/.test(path)) return 'gemini';
  if (/\/converse(-stream)?$/.test(path)) return 'bedrock';
  if (path.endsWith('/v2/chat')) return 'cohere';
  return undefined;
}
