/**
 * Google's JSON mapping of protobuf accepts the proto field names (`system_instruction`,
 * `inline_data.mime_type`), and Google's own REST examples use them, as well as lowerCamelCase.
 * The decoder reads one spelling: this renames snake_case keys of the request's own structure to
 * lowerCamelCase, and leaves the client's data (function args and responses, schemas, labels)
 * untouched. Where a body spells one field both ways, the lowerCamelCase member wins and the
 * other stays as it is, so it is reported like any unknown field.
 */
export function camelCaseRequest(body: Record<string, unknown>): Record<string, unknown> {
  const top = camelKeys(body);
  // Google's JSON mapping takes a lone object for a repeated field (its REST examples do).
  if (isObject(top.contents)) top.contents = [top.contents];
  if (Array.isArray(top.contents)) top.contents = top.contents.map(content);
  if (isObject(top.systemInstruction)) top.systemInstruction = content(top.systemInstruction);
  if (Array.isArray(top.tools)) top.tools = top.tools.map(tool);
  if (isObject(top.toolConfig)) top.toolConfig = nested(camelKeys(top.toolConfig), ['functionCallingConfig']);
  if (isObject(top.generationConfig)) top.generationConfig = camelKeys(top.generationConfig);
  return top;
}

function content(value: unknown): unknown {
  if (!isObject(value)) return value;
  const out = camelKeys(value);
  if (isObject(out.parts)) out.parts = [out.parts];
  if (Array.isArray(out.parts)) out.parts = out.parts.map(part);
  return out;
}

function part(value: unknown): unknown {
  if (!isObject(value)) return value;
  const out = nested(camelKeys(value), ['inlineData', 'fileData', 'functionCall']);
  if (isObject(out.functionResponse)) {
    const response = camelKeys(out.functionResponse);
    if (Array.isArray(response.parts)) response.parts = response.parts.map((p) => (isObject(p) ? nested(camelKeys(p), ['inlineData', 'fileData']) : p));
    out.functionResponse = response;
  }
  return out;
}

function tool(value: unknown): unknown {
  if (!isObject(value)) return value;
  const out = camelKeys(value);
  if (Array.isArray(out.functionDeclarations)) out.functionDeclarations = out.functionDeclarations.map((d) => (isObject(d) ? camelKeys(d) : d));
  return out;
}

/** Renames the keys of the objects at `keys` too (one level down). */
function nested(object: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  for (const key of keys) {
    const value = object[key];
    if (isObject(value)) object[key] = camelKeys(value);
  }
  return object;
}

function camelKeys(object: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(object)) {
    const camel = key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
    out[camel !== key && Object.hasOwn(object, camel) ? key : camel] = value;
  }
  return out;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
