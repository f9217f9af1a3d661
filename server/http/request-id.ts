import { randomBytes } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

// A random prefix per thread and a counter: unique ids without a call into the random source on
// every request (which showed in profiles of the hot path). The 64 random bits are drawn anew in
// every thread of every process, so ids stay unique across worker threads and restarts (a counter
// alone would start again at 1).
const prefix = `req_${randomBytes(8).toString('hex')}`;
let counter = 0;

/** Every response carries `x-request-id`; log lines and the request record carry the same id. */
export function newRequestId(): string {
  counter = (counter + 1) % Number.MAX_SAFE_INTEGER;
  return `${prefix}${counter.toString(16).padStart(8, '0')}`;
}

/**
 * What a client's own `x-request-id` may look like to be kept (UUIDs, trace ids, base64 ids):
 * short and plain, so it is safe in a header, a log line and a span attribute.
 */
const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:+/=-]{1,128}$/;

/** The client's `x-request-id` when it sends a plausible one, else a new id. */
export function requestIdFor(headers: IncomingHttpHeaders): string {
  const sent = headers['x-request-id'];
  return typeof sent === 'string' && CLIENT_REQUEST_ID.test(sent) ? sent : newRequestId();
}

/**
 * The id the gateway's own books (the spend ledger) key on. The request id when the gateway made
 * it; a fresh one when the client chose it, since a client-chosen id is echoed and logged but never
 * trusted for money (replaying one id must not make later requests settle as duplicates).
 */
export function ledgerRequestId(requestId: string, headers: IncomingHttpHeaders): string {
  return headers['x-request-id'] === requestId ? newRequestId() : requestId;
}
