import type { ProviderRuntime } from '../config/runtime-config.ts';
import { authHeaders } from './auth-headers.ts';

/** What a call adds to its provider's headers (besides `accept`). */
export interface HeaderCall {
  /** Client headers worth forwarding (same-protocol only), e.g. anthropic-beta. */
  readonly forwardHeaders?: Readonly<Record<string, string>> | undefined;
  readonly contentType?: string | undefined;
  readonly contentLength?: number | undefined;
}

/**
 * A request's headers, by precedence: the catalog's defaults (anthropic-version for translated
 * requests), then the client's forwarded ones (on the same-protocol path the client knows what it
 * speaks), then the provider's credential, content type and accept-encoding, then `accept`, then a
 * multipart upload's own content type and length.
 *
 * Per provider and accept value, the headers of a call that adds nothing else are one object,
 * built once and handed to the client as a list made once (headerList): building them per request (four
 * spreads) showed in the hot path. The result is never to be changed: a caller that adds headers
 * (Bedrock's signature) copies it.
 */
export function upstreamHeaders(provider: ProviderRuntime, accept: string, call: HeaderCall): Readonly<Record<string, string>> {
  const base = prepared(provider, accept);
  const forward = call.forwardHeaders;
  const forwards = forward !== undefined && hasKeys(forward);
  if (!forwards && call.contentType === undefined && call.contentLength === undefined) return base;
  const headers: Record<string, string> = { ...base };
  if (forwards) {
    const fixed = fixedHeaders(provider);
    for (const name in forward) if (!(name in fixed) && name !== 'accept') headers[name] = forward[name] as string;
  }
  if (call.contentType !== undefined) headers['content-type'] = call.contentType;
  if (call.contentLength !== undefined) headers['content-length'] = String(call.contentLength);
  return headers;
}

/**
 * The headers as the upstream client writes them into a request's head (upstream-connection.ts):
 * names and values in pairs, each checked so none can split the head. A prepared (shared) set's
 * list is made and checked once; a call's own set (forwarded or signed headers) gets its own.
 */
export function headerList(headers: Readonly<Record<string, string>>): readonly string[] {
  return lists.get(headers) ?? pairs(headers);
}

function pairs(headers: Readonly<Record<string, string>>): string[] {
  const list: string[] = [];
  for (const name in headers) {
    const value = headers[name] as string;
    // Written into the request's head as they are: a name that is not a token or a value with a line break would split it.
    if (!TOKEN.test(name) || BREAK.test(value)) throw new TypeError(`invalid upstream header ${JSON.stringify(name)}`);
    list.push(name, value);
  }
  return list;
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const BREAK = /[\r\n\0]/;

const lists = new WeakMap<Readonly<Record<string, string>>, readonly string[]>();
const byProvider = new WeakMap<ProviderRuntime, Map<string, Readonly<Record<string, string>>>>();
const fixedByProvider = new WeakMap<ProviderRuntime, Readonly<Record<string, string>>>();

function prepared(provider: ProviderRuntime, accept: string): Readonly<Record<string, string>> {
  let byAccept = byProvider.get(provider);
  if (byAccept === undefined) byProvider.set(provider, (byAccept = new Map()));
  let headers = byAccept.get(accept);
  if (headers === undefined) {
    headers = { ...provider.headers, ...fixedHeaders(provider), accept };
    byAccept.set(accept, headers); // accept values are the gateway's own few
    lists.set(headers, Object.freeze(pairs(headers)));
  }
  return headers;
}

function fixedHeaders(provider: ProviderRuntime): Readonly<Record<string, string>> {
  let headers = fixedByProvider.get(provider);
  if (headers === undefined) {
    headers = {
      ...authHeaders(provider),
      'content-type': 'application/json',
      // Identity: the gateway taps the bytes (usage, errors) and must not need to inflate them.
      'accept-encoding': 'identity',
    };
    fixedByProvider.set(provider, headers);
  }
  return headers;
}

function hasKeys(record: Readonly<Record<string, string>>): boolean {
  for (const _ in record) return true;
  return false;
}
