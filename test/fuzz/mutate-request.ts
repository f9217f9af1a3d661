// Mutations of the request around the body: the headers (content types, key carriers, protocol
// headers, ids), the method and the path (model segments that do not decode, odd query strings).
import type { ProtocolId } from '../../server/ir/index.ts';
import type { Prng } from './prng.ts';

export type Headers = Record<string, string>;

/** How each protocol's clients send their key, and the headers its SDK always adds. */
export function protocolHeaders(protocol: ProtocolId, key: string): Headers {
  const json = { 'content-type': 'application/json' };
  switch (protocol) {
    case 'anthropic':
      return { ...json, 'x-api-key': key, 'anthropic-version': '2023-06-01' };
    case 'gemini':
      return { ...json, 'x-goog-api-key': key };
    default:
      return { ...json, authorization: `Bearer ${key}` };
  }
}

const KEY_HEADERS = ['authorization', 'x-api-key', 'x-goog-api-key'];

const CONTENT_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=fuzz',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'application/xml',
  '',
  ';;;',
  'application/json, text/plain',
  'APPLICATION/JSON',
];

/** One header mutation, in place. */
export function mutateHeaders(headers: Headers, key: string, rng: Prng, notes: string[]): void {
  const carrier = KEY_HEADERS.find((h) => headers[h] !== undefined);
  switch (rng.int(12)) {
    case 0:
      delete headers['content-type'];
      notes.push('no content-type');
      break;
    case 1:
      headers['content-type'] = rng.pick(CONTENT_TYPES);
      notes.push(`content-type "${headers['content-type']}"`);
      break;
    case 2:
      for (const h of KEY_HEADERS) delete headers[h];
      notes.push('no key');
      break;
    case 3: {
      const value = rng.pick([
        'Bearer',
        'Bearer ',
        'Basic Zm9vOmJhcg==',
        `Bearer ${key} extra`,
        `Bearer ${'k'.repeat(4000)}`,
        'Bearer sk-wrong-key',
        `bearer\t${key}`,
        'Bearer \u00e9\u00e9',
      ]);
      headers.authorization = value;
      notes.push(`authorization "${value.slice(0, 30)}"`);
      break;
    }
    case 4: {
      // The key moved to another protocol's carrier.
      if (carrier !== undefined) delete headers[carrier];
      const other = rng.pick(KEY_HEADERS);
      headers[other] = other === 'authorization' ? `Bearer ${key}` : key;
      notes.push(`key in ${other}`);
      break;
    }
    case 5:
      headers['anthropic-version'] = rng.pick(['', 'not-a-date', '1999-01-01', 'x'.repeat(3000)]);
      notes.push('anthropic-version mutated');
      break;
    case 6:
      headers['x-request-id'] = rng.pick(['replay-1', 'x'.repeat(500), '../../etc/passwd', 'id with spaces', '\u00ff\u00fe']);
      notes.push('x-request-id mutated');
      break;
    case 7:
      headers['content-encoding'] = rng.pick(['gzip', 'br', 'deflate', 'identity', 'zstd']);
      notes.push(`content-encoding ${headers['content-encoding']}`);
      break;
    case 8:
      headers.accept = rng.pick(['text/event-stream', 'application/x-ndjson', '*/*;q=0', 'text/html']);
      notes.push(`accept ${headers.accept}`);
      break;
    case 9:
      headers.traceparent = rng.pick(['00-zz-zz-01', '00-' + '0'.repeat(32) + '-' + '0'.repeat(16) + '-00', 'x'.repeat(200)]);
      notes.push('traceparent mutated');
      break;
    case 10: {
      const count = rng.pick([20, 200]);
      for (let i = 0; i < count; i++) headers[`x-fuzz-${i}`] = 'v'.repeat(8);
      notes.push(`${count} extra headers`);
      break;
    }
    default:
      headers['x-stainless-retry-count'] = '-1';
      headers['anthropic-beta'] = rng.pick(['', 'unknown-beta-2099', 'a,b,,c']);
      notes.push('SDK headers mutated');
  }
}

/** A model path segment that is not a configured model, or does not even decode. */
export function mutatedPathModel(model: string, rng: Prng, notes: string[]): string {
  const value = rng.pick(['%zz', '%', '%00', '..%2F..%2F', encodeURIComponent('ü'), 'm'.repeat(3000), `${model}%20`, '', `${model}:x`, '%E0%A4%A']);
  notes.push(`path model "${value.slice(0, 30)}"`);
  return value;
}

export const ODD_METHODS = ['GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'];

/** Paths no route serves, and near misses of those that exist. */
export const UNKNOWN_PATHS = [
  '/',
  '/v1',
  '/v1/',
  '/v1/chat',
  '/v1/chat/completions/',
  '/v1/chat/completions/x',
  '/v1/messages/count_tokens',
  '/v1/completions',
  '/v1/embeddings',
  '/v1beta/models',
  '/v1beta/models/to-gemini:countTokens',
  '/v1beta/models/to-gemini',
  '/model/to-bedrock/invoke',
  '/model/to-bedrock',
  '/v2',
  '/v2/embed',
  '/%ff%fe',
  '/..%2f..%2fetc%2fpasswd',
  '/v1/models/../healthz',
  `/${'a'.repeat(4000)}`,
  '//v1/chat/completions',
  '/V1/CHAT/COMPLETIONS',
  '/v1/responses/resp_1',
  '/api/v1/admin/keys',
  '/favicon.ico',
  '/v1/models?%zz',
  '/healthz?x=%zz',
  '/v1beta/models/%zz:generateContent',
  '/model/%zz/converse',
];
