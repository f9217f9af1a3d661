import { randomBytes } from 'node:crypto';

/** A fresh CSP nonce per page: only the page's own inline style and script run. */
export function newNonce(): string {
  return randomBytes(16).toString('base64');
}

/**
 * Headers for every answer of GET /auth/token (pages and redirects). The key page must never be
 * stored (no-store), framed, or leak its URL (which held the one-time code) in a Referer; the CSP
 * allows nothing but the nonce'd inline style and script, and forms and <base> not at all.
 */
export function pageHeaders(nonce: string): Record<string, string> {
  return {
    'content-security-policy': [
      "default-src 'none'",
      `script-src 'nonce-${nonce}'`,
      `style-src 'nonce-${nonce}'`,
      'img-src data:',
      "base-uri 'none'",
      "form-action 'none'",
      "frame-ancestors 'none'",
    ].join('; '),
    'cache-control': 'no-store',
    pragma: 'no-cache',
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'cross-origin-opener-policy': 'same-origin',
    'cross-origin-resource-policy': 'same-origin',
  };
}
