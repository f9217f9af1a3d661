// The wire types in generated/protocols/ turn a schema's if/then dispatch ("known block types are
// checked strictly; others pass") into a union of one member per branch plus the open rest
// (codegen/dispatch-unions.ts). Comparing `part.type === 'text'` cannot narrow such a union (the
// rest's `type` is any string), so codecs ask these instead; the validator has checked the branch.

/** The member of `U` whose `type` is `T`. */
export type Branch<U, T extends string> = Extract<U, { type: T }>;

/** `value` is the `type` branch of its schema union. */
export function isType<U extends { type: string }, T extends string>(value: U, type: T): value is Branch<U, T> {
  return value.type === type;
}

/**
 * A member the schema does not name, of an object it leaves open ("unknown kinds pass"). The
 * generated types are closed, so that a member the schema renames fails the type check where a
 * codec reads it; members read by a computed name (to refuse or warn about them) go through here.
 */
export function openMember(value: object, key: string): unknown {
  return (value as Record<string, unknown>)[key];
}
