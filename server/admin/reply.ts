import type { components, paths } from '../../generated/admin-api.ts';

type ErrorView = components['schemas']['ErrorView'];

/** An admin answer before it is written: openapi-backend hands it back from the handler. */
export interface Reply {
  readonly status: number;
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

type JsonBody<R> = R extends { content: { 'application/json': infer B } } ? B : never;
type Responses<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends { responses: infer R } ? R : never;

/**
 * Every answer an operation may give, by status, with the body the spec declares for it. Handlers
 * return this type, so a handler answering a status or a shape the spec does not list (or no longer
 * lists, after a spec change) fails the type check.
 */
export type OperationReply<P extends keyof paths, M extends keyof paths[P]> = {
  [S in keyof Responses<P, M>]: { readonly status: S; readonly body: JsonBody<Responses<P, M>[S]>; readonly headers?: Readonly<Record<string, string>> };
}[keyof Responses<P, M>];

export function errorBody(code: string, message: string): ErrorView {
  return { error: { code, message } };
}

export function errorReply<S extends number>(status: S, code: string, message: string): { readonly status: S; readonly body: ErrorView } {
  return { status, body: errorBody(code, message) };
}
