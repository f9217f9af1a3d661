import { compile, type JSONSchema } from 'json-schema-to-typescript';
import { dispatchUnions } from './dispatch-unions.ts';
import { doNotEditHeader } from './generated-file.ts';

/** The four schemas every protocol folder under spec/protocols/ holds. */
export const WIRE_KINDS = ['request', 'response', 'stream-event', 'error'] as const;
export type WireKind = (typeof WIRE_KINDS)[number];

const PROTOCOL_PREFIX: Record<string, string> = { openai: 'OpenAI' };
const KIND_SUFFIX: Record<WireKind, string> = { request: 'Request', response: 'Response', 'stream-event': 'StreamEvent', error: 'ErrorBody' };

/** `AnthropicRequest`, `OpenAIStreamEvent`, `GeminiErrorBody`, ...: the root type of one wire schema. */
export function wireTypeName(protocol: string, kind: WireKind): string {
  const prefix = PROTOCOL_PREFIX[protocol] ?? protocol.charAt(0).toUpperCase() + protocol.slice(1);
  return prefix + KIND_SUFFIX[kind];
}

/**
 * TypeScript types for one protocol schema (spec/protocols/<id>/<kind>.schema.json), imported by
 * that protocol's codec. The schema is compiled as written: a request's optional members accept
 * null only in the validator (nullable-optionals.ts), and the gateway removes those nulls before a
 * codec reads the body (server/protocols/shared/absent-nulls.ts), so the type is what the codec
 * sees. If/then dispatches become unions of their branches (dispatch-unions.ts). The root is
 * named after protocol and kind rather than the schema's prose title; each `$defs` entry becomes a
 * type of its own name, referenced or not, so a codec can name the block kinds it reads.
 */
export async function emitWireTypes(schema: object, name: string, sourceName: string): Promise<string> {
  const titled = { ...(dispatchUnions(schema) as Record<string, unknown>), title: name } as JSONSchema;
  const body = await compile(titled, name, {
    bannerComment: '',
    additionalProperties: false,
    strictIndexSignatures: true,
    unreachableDefinitions: true,
    declareExternallyReferenced: true,
    format: true,
    style: { singleQuote: true, printWidth: 110 },
  });
  return doNotEditHeader(sourceName) + body;
}
