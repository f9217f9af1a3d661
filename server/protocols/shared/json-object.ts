// The IR keeps the caller's own JSON (a tool's parameter schema, a response schema) verbatim as
// `unknown`; the wire types say such a member is a JSON object. Every ingress schema admits only
// an object there, so an encoder hands the value on as one, through this single named step.

/** `value`, a JSON object that an ingress schema checked, as the wire types spell it. */
export function asJsonObject(value: unknown): Record<string, unknown> {
  return value as Record<string, unknown>;
}
