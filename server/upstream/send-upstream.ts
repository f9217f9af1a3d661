import type { IncomingHttpHeaders } from 'node:http';
import { Readable } from 'node:stream';
import type { ProviderRuntime } from '../config/runtime-config.ts';
import { GatewayFailure, gatewayError } from '../ir/index.ts';
import { signBedrockRequest } from './sigv4.ts';
import type { UpstreamClient, UpstreamTarget } from './upstream-client.ts';
import { headerList, upstreamHeaders } from './upstream-headers.ts';
import type { AbortWatch } from './abort-watch.ts';
import { UpstreamReply } from './upstream-reply.ts';

export { describeBodyError, describeNetworkError } from './upstream-errors.ts';

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
  /** The attempt's abort without a listener on `signal` (abort-watch.ts says why); the signal's listener otherwise. */
  readonly abortWatch?: AbortWatch;
  /** Time to response headers, and the longest silence inside the body. */
  readonly headersTimeoutMs: number;
  readonly idleTimeoutMs: number;
}

/** The answer's status and headers; its body is read as chunks (`for await`), whole (readUpstreamBody), or let go (`destroy`). */
export interface UpstreamResponse {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  readonly body: UpstreamReply;
}

/**
 * Sends one request to a provider. Resolves when the response headers arrive; the body streams.
 * Network failures become GatewayFailures with a status that says what happened (502, 504).
 * Not async: the usual call hands back the reply's own promise, with no wrapper around it.
 */
export function sendUpstream(dispatcher: UpstreamClient, call: UpstreamCall): Promise<UpstreamResponse> {
  try {
    const { provider } = call;
    const target = upstreamTarget(provider, call.path);
    const headers = upstreamHeaders(provider, call.accept ?? (call.stream ? 'text/event-stream' : 'application/json'), call);
    return provider.aws === undefined ? dispatchCall(dispatcher, call, target, headers) : sendSigned(dispatcher, call, target, headers);
  } catch (error) {
    return Promise.reject(error);
  }
}

/** A Bedrock request signed with SigV4: signed last, over exactly the headers and body that are sent. */
async function sendSigned(
  dispatcher: UpstreamClient,
  call: UpstreamCall,
  target: Target,
  headers: Readonly<Record<string, string>>,
): Promise<UpstreamResponse> {
  const aws = call.provider.aws as NonNullable<ProviderRuntime['aws']>;
  if (typeof call.body !== 'string' && !Buffer.isBuffer(call.body))
    throw new GatewayFailure(gatewayError('invalid_request', 'a streamed upload cannot be sent to a Bedrock lane', { code: 'operation_not_supported' }));
  const signed = await signBedrockRequest({
    url: new URL(target.origin + target.path),
    method: 'POST',
    headers,
    body: call.body,
    region: aws.region,
    credentials: aws.credentials,
  });
  return dispatchCall(dispatcher, call, target, { ...headers, ...signed });
}

function dispatchCall(dispatcher: UpstreamClient, call: UpstreamCall, target: Target, headers: Readonly<Record<string, string>>): Promise<UpstreamReply> {
  const whole = typeof call.body === 'string' || Buffer.isBuffer(call.body);
  const upload = whole ? undefined : Readable.from(call.body as AsyncIterable<Buffer>, { objectMode: false });
  const reply = new UpstreamReply(call.signal, call.provider.name, upload, call.abortWatch);
  dispatcher.dispatch(
    {
      target,
      headers: headerList(headers),
      body: upload ?? (call.body as Buffer | string),
      headersTimeout: call.headersTimeoutMs,
      bodyTimeout: call.idleTimeoutMs,
    },
    reply,
  );
  return reply.response;
}

// Per provider, computed once: where a path goes (URL parsing showed in hot-path profiles).
interface Target extends UpstreamTarget {
  /** For SigV4, which signs the URL. */
  readonly origin: string;
}
const targets = new WeakMap<ProviderRuntime, Map<string, Target>>();

function upstreamTarget(provider: ProviderRuntime, path: string): Target {
  let byPath = targets.get(provider);
  if (byPath === undefined) targets.set(provider, (byPath = new Map()));
  let target = byPath.get(path);
  if (target === undefined) {
    const url = new URL(provider.baseUrl + path);
    for (const [key, value] of Object.entries(provider.query)) url.searchParams.set(key, value);
    const https = url.protocol === 'https:';
    const port = url.port === '' ? (https ? 443 : 80) : Number(url.port);
    // url.hostname keeps an IPv6 address's brackets, which the socket must not see.
    const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    target = { origin: url.origin, path: url.pathname + url.search, https, hostname, port, host: url.host };
    // Paths carry the upstream model (Gemini, Bedrock): bounded by the configuration's lanes.
    byPath.set(path, target);
  }
  return target;
}
