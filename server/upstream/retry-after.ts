import type { IncomingHttpHeaders } from 'node:http';

/** Seconds to wait, from `retry-after-ms` (OpenAI) or `retry-after` (seconds or an HTTP date). */
export function retryAfterSeconds(headers: IncomingHttpHeaders, now = Date.now()): number | undefined {
  const ms = headerValue(headers['retry-after-ms']);
  if (ms !== undefined && /^\d+(\.\d+)?$/.test(ms)) return Number(ms) / 1000;
  const value = headerValue(headers['retry-after']);
  if (value === undefined) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, (date - now) / 1000);
}

function headerValue(value: string | string[] | undefined): string | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  return v === undefined ? undefined : v.trim();
}
