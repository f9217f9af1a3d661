/**
 * Google's JSON mapping of protobuf accepts the proto field names (`system_instruction`,
 * `inline_data.mime_type`), and Google's own REST examples use them, as well as lowerCamelCase.
 * The decoder reads one spelling: this renames snake_case keys of the request's own structure to
 * lowerCamelCase, and leaves the client's data (function args and responses, schemas, labels)
 * untouched. Where a body spells one field both ways, the lowerCamelCase member wins and the
 * other stays as it is, so it is reported like any unknown field.
 */
export interface CamelCased {
  readonly body: Record<string, unknown>;
  /**
   * Some key was renamed: the request schema names the lowerCamelCase members only, so the members
   * sent in snake_case have not been checked yet.
   */
  readonly renamed: boolean;
}

export function camelCaseRequest(request: Record<string, unknown>): CamelCased {
  const renamer = new Renamer();
  const top = renamer.keys(request);
  // Google's JSON mapping takes a lone object for a repeated field (its REST examples do).
  if (isObject(top.contents)) top.contents = [top.contents];
  if (Array.isArray(top.contents)) top.contents = top.contents.map((c) => renamer.content(c));
  if (isObject(top.systemInstruction)) top.systemInstruction = renamer.content(top.systemInstruction);
  if (Array.isArray(top.tools)) top.tools = top.tools.map((t) => renamer.tool(t));
  if (isObject(top.toolConfig)) top.toolConfig = renamer.nested(renamer.keys(top.toolConfig), ['functionCallingConfig']);
  if (isObject(top.generationConfig)) top.generationConfig = renamer.keys(top.generationConfig);
  return { body: top, renamed: renamer.renamed };
}

class Renamer {
  renamed = false;

  content(value: unknown): unknown {
    if (!isObject(value)) return value;
    const out = this.keys(value);
    if (isObject(out.parts)) out.parts = [out.parts];
    if (Array.isArray(out.parts)) out.parts = out.parts.map((p) => this.part(p));
    return out;
  }

  part(value: unknown): unknown {
    if (!isObject(value)) return value;
    const out = this.nested(this.keys(value), ['inlineData', 'fileData', 'functionCall']);
    if (isObject(out.functionResponse)) {
      const response = this.keys(out.functionResponse);
      if (Array.isArray(response.parts)) response.parts = response.parts.map((p) => (isObject(p) ? this.nested(this.keys(p), ['inlineData', 'fileData']) : p));
      out.functionResponse = response;
    }
    return out;
  }

  tool(value: unknown): unknown {
    if (!isObject(value)) return value;
    const out = this.keys(value);
    if (Array.isArray(out.functionDeclarations)) out.functionDeclarations = out.functionDeclarations.map((d) => (isObject(d) ? this.keys(d) : d));
    return out;
  }

  /** Renames the keys of the objects at `keys` too (one level down). */
  nested(object: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
    for (const key of keys) {
      const value = object[key];
      if (isObject(value)) object[key] = this.keys(value);
    }
    return object;
  }

  keys(object: Record<string, unknown>): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(object)) {
      const camel = key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
      const name = camel !== key && Object.hasOwn(object, camel) ? key : camel;
      if (name !== key) this.renamed = true;
      out[name] = value;
    }
    return out;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
