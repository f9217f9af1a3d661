// A codec's decodeRequest receives the body as JSON (`Record<string, unknown>`) after it passed the
// protocol's request schema (gateway/request-body.ts) and lost its null members
// (absent-nulls.ts). Its type is then the one generated from that schema
// (generated/protocols/<id>/request.ts), so the codec reads members by name and a schema change it
// does not follow fails the type check. The one place that says so, instead of a cast per member.

/** `body`, which the request schema `T` was generated from has validated. */
export function validatedRequest<T extends object>(body: Record<string, unknown>): T {
  return body as T;
}
