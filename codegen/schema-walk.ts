// The codegen's schema rewrites (nullable-optionals.ts, dispatch-unions.ts) both copy a schema
// deeply and change some of its object nodes on the way back up: that walk, written once.

export type Schema = Record<string, unknown>;

export const isSchema = (value: unknown): value is Schema => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A deep copy of `node` in which `rewrite` has seen, and may replace, every object node, innermost
 * first. It gets the node's copy (children already rewritten, its to change) and the node as it was.
 */
export function rewriteSchema(node: unknown, rewrite: (copy: Schema, original: Schema) => unknown): unknown {
  if (Array.isArray(node)) return node.map((item) => rewriteSchema(item, rewrite));
  if (!isSchema(node)) return node;
  const copy: Schema = {};
  for (const [key, value] of Object.entries(node)) copy[key] = rewriteSchema(value, rewrite);
  return rewrite(copy, node);
}
