// SigV4 for Bedrock, checked against an independent recomputation of the algorithm (canonical
// request, string to sign, derived key) with node:crypto, at a fixed signing date.
import { createHash, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { credentialsFromEnv, regionFromBedrockUrl, signBedrockRequest, type AwsCredentials } from '../../../server/upstream/sigv4.ts';

const DATE = new Date('2026-11-22T10:11:12Z');
const CREDENTIALS: AwsCredentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();
/** RFC 3986 unreserved characters stay; everything else is %XX (what SigV4 calls UriEncode). */
const uriEncode = (s: string) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

interface Expected {
  readonly url: URL;
  readonly headers: Record<string, string>;
  readonly body: string;
  readonly region: string;
  readonly credentials: AwsCredentials;
}

/** The Authorization header SigV4 prescribes, computed from scratch. */
function expectedAuthorization({ url, headers, body, region, credentials }: Expected): string {
  const amzDate = '20261122T101112Z';
  const day = amzDate.slice(0, 8);
  const payloadHash = sha256(body);
  const all: Record<string, string> = { ...headers, host: url.host, 'x-amz-date': amzDate, 'x-amz-content-sha256': payloadHash };
  if (credentials.sessionToken !== undefined) all['x-amz-security-token'] = credentials.sessionToken;
  const names = Object.keys(all)
    .map((n) => n.toLowerCase())
    .sort();
  const canonicalHeaders = names.map((n) => `${n}:${(all[n] ?? '').trim().replace(/\s+/g, ' ')}\n`).join('');
  // Every service but S3 encodes the (already encoded) path segments once more.
  const canonicalUri = url.pathname.split('/').map(uriEncode).join('/');
  const canonicalQuery = [...url.searchParams.entries()]
    .map(([k, v]) => `${uriEncode(k)}=${uriEncode(v)}`)
    .sort()
    .join('&');
  const canonicalRequest = ['POST', canonicalUri, canonicalQuery, canonicalHeaders, names.join(';'), payloadHash].join('\n');
  const scope = `${day}/${region}/bedrock/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonicalRequest)].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${credentials.secretAccessKey}`, day), region), 'bedrock'), 'aws4_request');
  const signature = createHmac('sha256', key).update(stringToSign).digest('hex');
  return `AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/${scope}, SignedHeaders=${names.join(';')}, Signature=${signature}`;
}

describe('signBedrockRequest', () => {
  const url = new URL('https://bedrock-runtime.us-east-1.amazonaws.com/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse');
  const headers = { 'content-type': 'application/json', accept: 'application/json' };
  const body = JSON.stringify({ messages: [{ role: 'user', content: [{ text: 'Hi' }] }] });

  it('signs a Converse request exactly as SigV4 prescribes, model id colon included', async () => {
    const added = await signBedrockRequest({ url, method: 'POST', headers, body, region: 'us-east-1', credentials: CREDENTIALS, signingDate: DATE });
    expect(Object.keys(added).sort()).toEqual(['authorization', 'x-amz-content-sha256', 'x-amz-date']);
    expect(added['x-amz-date']).toBe('20261122T101112Z');
    expect(added['x-amz-content-sha256']).toBe(sha256(body));
    expect(added.authorization).toBe(expectedAuthorization({ url, headers, body, region: 'us-east-1', credentials: CREDENTIALS }));
  });

  it('signs temporary credentials with their session token, a Buffer body, a query and another region', async () => {
    const credentials = { ...CREDENTIALS, sessionToken: 'FwoGZXIvYXdzEXAMPLETOKEN//' };
    const streamUrl = new URL('https://bedrock-runtime.eu-west-3.amazonaws.com/model/mistral.mistral-large-2407-v1%3A0/converse-stream?b=2&a=1%202');
    const bytes = Buffer.from(body);
    const added = await signBedrockRequest({ url: streamUrl, method: 'post', headers, body: bytes, region: 'eu-west-3', credentials, signingDate: DATE });
    expect(added['x-amz-security-token']).toBe(credentials.sessionToken);
    expect(added.authorization).toBe(expectedAuthorization({ url: streamUrl, headers, body, region: 'eu-west-3', credentials }));
  });

  it('changes the signature when the body changes', async () => {
    const sign = (b: string) => signBedrockRequest({ url, method: 'POST', headers, body: b, region: 'us-east-1', credentials: CREDENTIALS, signingDate: DATE });
    expect((await sign('{}')).authorization).not.toBe((await sign('{ }')).authorization);
  });
});

describe('regionFromBedrockUrl', () => {
  it.each([
    ['https://bedrock-runtime.us-east-1.amazonaws.com', 'us-east-1'],
    ['https://bedrock-runtime.eu-central-2.amazonaws.com/', 'eu-central-2'],
    ['https://bedrock-runtime-fips.us-gov-west-1.amazonaws.com', 'us-gov-west-1'],
    ['https://bedrock-runtime.cn-north-1.amazonaws.com.cn', 'cn-north-1'],
    ['https://vpce-0abc-xyz.bedrock-runtime.ap-southeast-2.vpce.amazonaws.com', 'ap-southeast-2'],
    ['http://127.0.0.1:4010', undefined],
    ['https://bedrock.example.com', undefined],
  ])('%s -> %s', (url, region) => {
    expect(regionFromBedrockUrl(url)).toBe(region);
    expect(regionFromBedrockUrl(new URL(url))).toBe(region);
  });
});

describe('credentialsFromEnv', () => {
  it('reads the standard variables, with the session token only when set', () => {
    expect(credentialsFromEnv({ AWS_ACCESS_KEY_ID: 'a', AWS_SECRET_ACCESS_KEY: 'b' })).toEqual({ accessKeyId: 'a', secretAccessKey: 'b' });
    expect(credentialsFromEnv({ AWS_ACCESS_KEY_ID: 'a', AWS_SECRET_ACCESS_KEY: 'b', AWS_SESSION_TOKEN: 't' })).toEqual({
      accessKeyId: 'a',
      secretAccessKey: 'b',
      sessionToken: 't',
    });
  });

  it('is undefined unless both key parts are set', () => {
    expect(credentialsFromEnv({})).toBeUndefined();
    expect(credentialsFromEnv({ AWS_ACCESS_KEY_ID: 'a' })).toBeUndefined();
    expect(credentialsFromEnv({ AWS_ACCESS_KEY_ID: '', AWS_SECRET_ACCESS_KEY: 'b' })).toBeUndefined();
  });
});
