import { compile, type JSONSchema } from 'json-schema-to-typescript';
import { doNotEditHeader } from './generated-file.ts';

/** TypeScript types for a JSON Schema of ours (config, catalog). */
export async function emitSchemaTypes(schema: JSONSchema, name: string, sourceName: string): Promise<string> {
  const body = await compile(schema, name, {
    bannerComment: '',
    additionalProperties: false,
    strictIndexSignatures: true,
    unreachableDefinitions: true,
    format: true,
    style: { singleQuote: true, printWidth: 110 },
  });
  return doNotEditHeader(sourceName) + body;
}
