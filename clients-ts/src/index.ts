/// <reference path="./fetch-body.d.ts" />
// The TypeScript admin client of the gateway: the generated operations (src/gen/, from
// spec/openapi.json by @hey-api/openapi-ts) plus `createAdminClient`, which points a client
// instance at one admin plane and sends the admin token. Hand-written; keep it small.
import { createClient, createConfig, type Client } from './gen/client/index.ts';

export * from './gen/index.ts';
export type { Client } from './gen/client/index.ts';

export interface AdminClientOptions {
  /** The admin plane's base URL, e.g. http://127.0.0.1:8081 (a trailing slash is fine). */
  readonly endpoint: string;
  /** The admin token, sent as `x-admin-token`; leave it out to call without one. */
  readonly token?: string | undefined;
  /**
   * The fetch to use instead of `globalThis.fetch`, e.g. one that sends over a TLS agent with a
   * client certificate. It is called with one `Request`.
   */
  readonly fetch?: ((request: Request) => Promise<Response>) | undefined;
}

/**
 * A client for one admin plane: pass it as `client` to every operation.
 *
 * ```ts
 * const client = createAdminClient({ endpoint: 'http://127.0.0.1:8081', token });
 * const { data, error } = await getApiV1AdminInfo({ client });
 * ```
 */
export function createAdminClient(options: AdminClientOptions): Client {
  return createClient(
    createConfig({
      baseUrl: options.endpoint.replace(/\/+$/, ''),
      headers: options.token === undefined ? {} : { 'x-admin-token': options.token },
      ...(options.fetch !== undefined && { fetch: options.fetch as typeof fetch }),
    }),
  );
}

/**
 * True when an operation's `error` is not an answer from the gateway but a failure to reach it
 * (connection refused, TLS handshake, DNS): the generated client returns those in `error` too,
 * with `response` undefined.
 */
export function isTransportError(error: unknown): error is Error {
  return error instanceof Error;
}
