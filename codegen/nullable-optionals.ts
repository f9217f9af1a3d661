// Request schemas accept `null` for every optional member: SDKs send it for "not set" (Python's
// `model_dump()` writes every unset optional field as null, e.g. an Anthropic tool_use's
// `"caller": null`), and the providers read it as absent. Written once here rather than in each
// of the request schemas, so a field added to a schema later gets it too. The gateway's codecs
// read such a null as an absent member (server/protocols/shared/absent-nulls.ts).

import { isSchema, rewriteSchema, type Schema } from './schema-walk.ts';

/** A deep copy of `schema` in which every property an object schema does not require also accepts null. */
export function nullableOptionals(schema: object): object {
  return rewriteSchema(schema, relaxOptionals) as object;
}

function relaxOptionals(out: Schema, node: Schema): Schema {
  if (isSchema(out.properties) && !isConditionBranch(node)) {
    const required = new Set(Array.isArray(node.required) ? (node.required as string[]) : []);
    const properties: Schema = {};
    for (const [name, property] of Object.entries(out.properties)) properties[name] = required.has(name) ? property : orNull(property);
    out.properties = properties;
  }
  return out;
}

/** `if` tests such as `{"properties": {"type": {"const": "text"}}}` select a branch; they are not shapes to relax. */
function isConditionBranch(node: Schema): boolean {
  if (!isSchema(node.properties)) return false;
  return Object.values(node.properties).every((p) => isSchema(p) && 'const' in p && Object.keys(p).length === 1);
}

function orNull(property: unknown): unknown {
  if (!isSchema(property)) return property;
  const type = property.type;
  const plain =
    !('enum' in property) &&
    !('const' in property) &&
    !('anyOf' in property) &&
    !('oneOf' in property) &&
    !('allOf' in property) &&
    !('$ref' in property) &&
    !('if' in property);
  if (plain && typeof type === 'string') return type === 'null' ? property : { ...property, type: [type, 'null'] };
  if (plain && Array.isArray(type)) return type.includes('null') ? property : { ...property, type: [...type, 'null'] };
  if (Array.isArray(property.enum) && Object.keys(property).every((k) => k === 'enum' || k === 'type' || k === 'description' || k === 'deprecated')) {
    if (property.enum.includes(null)) return property;
    const withNull: Schema = { ...property, enum: [...property.enum, null] };
    if (typeof type === 'string') withNull.type = [type, 'null'];
    else if (Array.isArray(type) && !type.includes('null')) withNull.type = [...type, 'null'];
    return withNull;
  }
  if (acceptsNull(property)) return property;
  return { anyOf: [{ type: 'null' }, property] };
}

/** Already says null is fine (a `type` list with null, or an anyOf/oneOf branch of type null). */
function acceptsNull(property: Schema): boolean {
  if (property.type === 'null' || (Array.isArray(property.type) && property.type.includes('null'))) return true;
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = property[key];
    if (Array.isArray(branches) && branches.some((b) => isSchema(b) && (b.type === 'null' || (Array.isArray(b.type) && b.type.includes('null'))))) return true;
  }
  return false;
}
