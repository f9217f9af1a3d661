// A request member whose value is null means "not set" in every protocol the gateway speaks (the
// request schemas accept null for each optional member: codegen/nullable-optionals.ts). The codecs
// read members as present or absent, so before a request is decoded for another protocol its null
// members are removed. Values that are the caller's own JSON (tool arguments, JSON schemas,
// metadata) are left exactly as sent: there a null is data.
import type { ProtocolId } from '../../ir/index.ts';

/** Per protocol, the member names whose value is the caller's JSON, at any depth. */
const OPAQUE: Record<ProtocolId, ReadonlySet<string>> = {
  openai: new Set(['parameters', 'schema', 'metadata', 'logit_bias']),
  responses: new Set(['parameters', 'schema', 'metadata']),
  anthropic: new Set(['input', 'input_schema', 'schema', 'metadata']),
  gemini: new Set([
    'parameters',
    'parametersJsonSchema',
    'parameters_json_schema',
    'responseSchema',
    'response_schema',
    'responseJsonSchema',
    'response_json_schema',
    'args',
    'response',
    'labels',
  ]),
  bedrock: new Set(['json', 'input', 'additionalModelRequestFields', 'requestMetadata']),
  cohere: new Set(['parameters', 'schema', 'json_schema']),
};

/**
 * `body` without its null members (outside the protocol's opaque values). Returns `body` itself
 * when it has none, so the common request costs one walk and no copy.
 */
export function withoutAbsentNulls(body: Record<string, unknown>, protocol: ProtocolId): Record<string, unknown> {
  return strip(body, OPAQUE[protocol]) as Record<string, unknown>;
}

function strip(value: unknown, opaque: ReadonlySet<string>): unknown {
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item = strip(value[i], opaque);
      if (item !== value[i]) (out ??= value.slice())[i] = item;
    }
    return out ?? value;
  }
  if (typeof value !== 'object' || value === null) return value;
  const record = value as Record<string, unknown>;
  let out: Record<string, unknown> | undefined;
  for (const key in record) {
    const member = record[key];
    if (member === null) {
      out ??= { ...record };
      delete out[key];
      continue;
    }
    if (typeof member !== 'object' || opaque.has(key)) continue;
    const stripped = strip(member, opaque);
    if (stripped !== member) (out ??= { ...record })[key] = stripped;
  }
  return out ?? record;
}
