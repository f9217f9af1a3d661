import type { IncomingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';
import { errors, type Dispatcher } from 'undici';
import type { ProviderRuntime } from '../config/runtime-config.ts';
import { GatewayFailure, gatewayError, type GatewayError } from '../ir/index.ts';
import { authHeaders } from './auth-headers.ts';
import { signBedrockRequest } from './sigv4.ts';

export interface UpstreamCall {
  readonly provider: ProviderRuntime;
  /** Path below the provider's base URL, e.g. `/chat/completions`. */
  readonly path: string;
  /** A whole body, or one streamed through as it arrives (a multipart upload: never signed, never Bedrock). */
  readonly body: Buffer | string | AsyncIterable<Buffer>;
  /** Default application/json; a multipart upload keeps the client's (its boundary). */
  readonly contentType?: string;
  /** The streamed body's length when known (otherwise it goes chunked). */
  readonly contentLength?: number;
  /** Default: text/event-stream for streams, application/json otherwise; audio answers accept anything. */
  readonly accept?: string;
  /** Client headers worth forwarding (same-protocol only), e.g. anthropic-beta. */
  readonly forwardHeaders?: Readonly<Record<string, string>>;
  readonly stream: boolean;
  readonly signal: AbortSignal;
  /** Time to response headers, and the longest silence inside the body. */
  readonly headersTimeoutMs: number;
  readonly idleTimeoutMs: number;
}

export interface UpstreamResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: Readable;
}

/**
 * Sends one request to a provider. Resolves when the response headers arrive; the body streams.
 * Network failures become GatewayFailures with a status that says what happened (502, 504).
 */
export async function sendUpstream(dispatcher: Dispatcher, call: UpstreamCall): Promise<UpstreamResponse> {
  const { provider } = call;
  const target = upstreamTarget(provider, call.path);
  const headers: Record<string, string> = {
    // The catalog's headers are defaults (anthropic-version for translated requests); on the
    // same-protocol path the client's own protocol headers win, since it knows what it speaks.
    ...provider.headers,
    ...call.forwardHeaders,
    ...providerHeaders(provider),
    accept: call.accept ?? (call.stream ? 'text/event-stream' : 'application/json'),
  };
  if (call.contentType !== undefined) headers['content-type'] = call.contentType;
  if (call.contentLength !== undefined) headers['content-length'] = String(call.contentLength);
  if (provider.aws !== undefined) {
    if (typeof call.body !== 'string' && !Buffer.isBuffer(call.body))
      throw new GatewayFailure(gatewayError('invalid_request', 'a streamed upload cannot be sent to a Bedrock lane', { code: 'operation_not_supported' }));
    // Signed last, over exactly the headers and body that are sent.
    Object.assign(
      headers,
      await signBedrockRequest({
        url: new URL(target.origin + target.path),
        method: 'POST',
        headers,
        body: call.body,
        region: provider.aws.region,
        credentials: provider.aws.credentials,
      }),
    );
  }
  try {
    const response = await dispatcher.request({
      origin: target.origin,
      path: target.path,
      method: 'POST',
      headers,
      body: typeof call.body === 'string' || Buffer.isBuffer(call.body) ? call.body : Readable.from(call.body, { objectMode: false }),
      signal: call.signal,
      headersTimeout: call.headersTimeoutMs,
      bodyTimeout: call.idleTimeoutMs,
    });
    return { status: response.statusCode, headers: response.headers as IncomingHttpHeaders, body: response.body };
  } catch (error) {
    throw new GatewayFailure(describeNetworkError(error, provider.name));
  }
}

export function describeNetworkError(error: unknown, providerName: string): GatewayError {
  if (error instanceof errors.HeadersTimeoutError || error instanceof errors.BodyTimeoutError) {
    return gatewayError('timeout', `upstream ${providerName} did not answer in time`, { status: 504, code: 'upstream_timeout' });
  }
  if (error instanceof errors.ConnectTimeoutError) {
    return gatewayError('timeout', `could not connect to upstream ${providerName} in time`, { status: 504, code: 'upstream_connect_timeout' });
  }
  const code = (error as { code?: string }).code;
  return gatewayError('server', `upstream ${providerName} is unreachable${code ? ` (${code})` : ''}`, { status: 502, code: 'upstream_unreachable' });
}

/**
 * A failure while reading a response body the upstream had begun: its framing refused by a framer
 * (a GatewayFailure, e.g. an endless line), a timeout, or the connection closed before the end,
 * which is said as such (not as "unreachable": the upstream was reached and answered).
 */
export function describeBodyError(error: unknown, providerName: string, what: 'stream' | 'answer'): GatewayError {
  if (error instanceof GatewayFailure) return error.error;
  const code = (error as { code?: string }).code;
  if (code === 'UND_ERR_SOCKET' || code === 'ECONNRESET' || code === 'EPIPE') {
    return gatewayError('server', `upstream ${providerName} closed the connection before the end of its ${what}`, { status: 502, code: 'upstream_closed' });
  }
  return describeNetworkError(error, providerName);
}

// Per provider, computed once: where a path goes (URL parsing showed in hot-path profiles) and
// the headers every request to it carries.
const targets = new WeakMap<ProviderRuntime, Map<string, { origin: string; path: string }>>();
const fixedHeaders = new WeakMap<ProviderRuntime, Record<string, string>>();

function upstreamTarget(provider: ProviderRuntime, path: string): { origin: string; path: string } {
  let byPath = targets.get(provider);
  if (byPath === undefined) targets.set(provider, (byPath = new Map()));
  let target = byPath.get(path);
  if (target === undefined) {
    const url = new URL(provider.baseUrl + path);
    for (const [key, value] of Object.entries(provider.query)) url.searchParams.set(key, value);
    target = { origin: url.origin, path: url.pathname + url.search };
    // Paths carry the upstream model (Gemini, Bedrock): bounded by the configuration's lanes.
    byPath.set(path, target);
  }
  return target;
}

function providerHeaders(provider: ProviderRuntime): Record<string, string> {
  let headers = fixedHeaders.get(provider);
  if (headers === undefined) {
    headers = {
      ...authHeaders(provider),
      'content-type': 'application/json',
      // Identity: the gateway taps the bytes (usage, errors) and must not need to inflate them.
      'accept-encoding': 'identity',
    };
    fixedHeaders.set(provider, headers);
  }
  return headers;
}
