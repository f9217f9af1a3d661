import { randomBytes } from 'node:crypto';

// A random prefix per thread and a counter: unique ids without a call into the random source on
// every request (which showed in profiles of the hot path).
const prefix = `req_${randomBytes(8).toString('hex')}`;
let counter = 0;

/** Every response carries `x-request-id`; log lines carry the same id. */
export function newRequestId(): string {
  counter = (counter + 1) % Number.MAX_SAFE_INTEGER;
  return `${prefix}${counter.toString(16).padStart(8, '0')}`;
}
