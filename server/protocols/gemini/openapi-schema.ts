/**
 * Gemini's `parameters` and `responseSchema` use an OpenAPI 3.0 subset: type names may be upper
 * case (the SDK's `Type.OBJECT` is "OBJECT") and `nullable: true` stands for a null alternative.
 * The IR carries plain JSON Schema, which is what every other protocol takes, so those two
 * spellings are rewritten; every other keyword is kept as it is.
 */
export function openApiToJsonSchema(schema: unknown): unknown {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return schema;
  const source = schema as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(source)) {
    if (key === 'nullable') continue;
    if (key === 'type' && typeof value === 'string') {
      if (value !== 'TYPE_UNSPECIFIED') out.type = value.toLowerCase();
    } else if (key === 'properties' && value !== null && typeof value === 'object' && !Array.isArray(value)) {
      out.properties = Object.fromEntries(Object.entries(value).map(([name, property]) => [name, openApiToJsonSchema(property)]));
    } else if (key === 'items') {
      out.items = openApiToJsonSchema(value);
    } else if (key === 'anyOf' && Array.isArray(value)) {
      out.anyOf = value.map(openApiToJsonSchema);
    } else {
      out[key] = value;
    }
  }
  if (source.nullable === true) addNull(out);
  return out;
}

function addNull(schema: Record<string, unknown>): void {
  if (typeof schema.type === 'string') schema.type = [schema.type, 'null'];
  else if (Array.isArray(schema.anyOf)) schema.anyOf = [...schema.anyOf, { type: 'null' }];
  if (Array.isArray(schema.enum) && !schema.enum.includes(null)) schema.enum = [...schema.enum, null];
}
