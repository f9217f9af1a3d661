// The protocol schemas dispatch on a discriminant with `allOf: [{if: {properties: {type: {const:
// "text"}}}, then: {...}}, ...]`: "known block types are checked strictly; others pass".
// json-schema-to-typescript compiles if/then to nothing, so a content block would be just
// `{type: string}` and the codec could not name a block's members. For the types only (the
// validators compile the schema as written), this rewrites each such node into the union it
// means: one member per branch (the node's own members, the discriminant fixed to the branch's
// value, and the branch's members), plus the node itself for the values no branch names (left out
// when the discriminant is an enum the branches cover). A codec narrows a value to its branch
// with `isType` (server/protocols/shared/schema-branch.ts).

import { isSchema, rewriteSchema, type Schema } from './schema-walk.ts';

/** A deep copy of `schema` with every if/then dispatch turned into an anyOf of its branches. */
export function dispatchUnions(schema: object): object {
  return rewriteSchema(schema, unionOfDispatch) as object;
}

function unionOfDispatch(out: Schema): Schema {
  // An object schema that names no members is any object (a JSON Schema the caller wrote, tool
  // arguments): `{ [key: string]: unknown }`, not the `{}` the closed-by-default option would give.
  const anObject = out.type === 'object' || (Array.isArray(out.type) && out.type.includes('object'));
  if (
    anObject &&
    out.properties === undefined &&
    out.additionalProperties === undefined &&
    out.patternProperties === undefined &&
    out.allOf === undefined &&
    out.anyOf === undefined &&
    out.oneOf === undefined &&
    out.$ref === undefined
  ) {
    out.additionalProperties = true;
  }
  const dispatch = dispatchOf(out);
  return dispatch === undefined ? out : union(out, dispatch);
}

interface Dispatch {
  readonly key: string;
  readonly branches: { readonly values: readonly string[]; readonly then: unknown }[];
  /** Branches chosen by another test (such as "no type at all"): members with the node's own discriminant. */
  readonly others: unknown[];
}

/** The discriminant and branches of an `allOf` made only of `if: {properties: {K: {const | enum}}}` / `then`. */
function dispatchOf(node: Schema): Dispatch | undefined {
  if (!Array.isArray(node.allOf) || node.allOf.length === 0) return undefined;
  let key: string | undefined;
  const branches: Dispatch['branches'] = [];
  const others: unknown[] = [];
  for (const entry of node.allOf) {
    if (!isSchema(entry) || !isSchema(entry.if) || entry.then === undefined || 'else' in entry) return undefined;
    const tested = isSchema(entry.if.properties) ? Object.entries(entry.if.properties) : [];
    if (tested.length !== 1) {
      others.push(entry.then);
      continue;
    }
    const [name, test] = tested[0]!;
    const values = !isSchema(test) ? undefined : typeof test.const === 'string' ? [test.const] : test.enum;
    if (!Array.isArray(values) || !values.every((v) => typeof v === 'string') || (key !== undefined && key !== name)) return undefined;
    key = name;
    branches.push({ values, then: entry.then });
  }
  return key === undefined ? undefined : { key, branches, others };
}

function union(node: Schema, { key, branches, others }: Dispatch): Schema {
  // Root-level keys ($defs, $schema, $id) stay on the union; only the shape goes into each member.
  const { allOf: _dispatch, title, description, $comment: _comment, $defs, $schema, $id, ...base } = node;
  const members: unknown[] = branches.map(({ values, then }) => ({
    allOf: [base, { type: 'object', required: [key], properties: { [key]: { enum: values } } }, then],
  }));
  for (const then of others) members.push({ allOf: [base, then] });
  const discriminant = isSchema(base.properties) ? base.properties[key] : undefined;
  const closed =
    isSchema(discriminant) && Array.isArray(discriminant.enum) && discriminant.enum.every((v) => branches.some((b) => b.values.includes(v as string)));
  if (!closed) members.push(base);
  const kept = { $schema, $id, title, description, $defs };
  return { ...Object.fromEntries(Object.entries(kept).filter(([, v]) => v !== undefined)), anyOf: members };
}
