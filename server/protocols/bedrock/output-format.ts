import type { ChatRequest, ResponseFormat, UnmappedField } from '../../ir/index.ts';
import type { TranslationWarning } from '../codec.ts';
import { invalidField, unsupportedField } from '../shared/invalid-field.ts';
import { dropped } from '../shared/warnings.ts';
import type { OutputConfig as BedrockOutputConfig } from '../../../generated/protocols/bedrock/request.ts';

// Structured output: Bedrock's outputConfig.textFormat, whose JSON Schema travels as a JSON text.

export function decodeOutputConfig(value: unknown, unmapped: UnmappedField[]): ResponseFormat | undefined {
  if (value === undefined || value === null) return undefined;
  const config = value as BedrockOutputConfig;
  if (config.effort !== undefined) unmapped.push({ path: 'outputConfig.effort', value: config.effort, disposition: 'warn', reason: 'reasoning effort' });
  const format = config.textFormat;
  if (format === undefined) return undefined;
  const definition = format.structure.jsonSchema;
  if (format.type !== 'json_schema' || definition === undefined) {
    throw invalidField('outputConfig.textFormat.type', `output format "${format.type}" cannot be translated`, 'unsupported_parameter');
  }
  let schema: unknown;
  try {
    schema = JSON.parse(definition.schema);
  } catch {
    throw invalidField('outputConfig.textFormat.structure.jsonSchema.schema', 'is not a JSON text');
  }
  if (definition.description !== undefined) {
    unmapped.push({
      path: 'outputConfig.textFormat.structure.jsonSchema.description',
      value: definition.description,
      disposition: 'warn',
      reason: 'schema description',
    });
  }
  return { type: 'json_schema', schema, ...(definition.name !== undefined && { name: definition.name }) };
}

export function encodeResponseFormat(request: ChatRequest, warnings: TranslationWarning[]): Record<string, unknown> | undefined {
  const format = request.responseFormat;
  if (format === undefined || format.type === 'text') return undefined;
  if (format.type === 'json_object') {
    throw unsupportedField('response_format', 'Bedrock', 'JSON mode without a schema has no equivalent; send a json_schema format');
  }
  // Bedrock's structured output always constrains decoding; it cannot be asked to be loose.
  if (format.strict === false) warnings.push(dropped('response_format.json_schema.strict', 'non-strict schema adherence'));
  return {
    textFormat: {
      type: 'json_schema',
      // Bedrock takes the schema as a JSON text, not as an object.
      structure: { jsonSchema: { schema: JSON.stringify(format.schema), ...(format.name !== undefined && { name: format.name }) } },
    },
  };
}
