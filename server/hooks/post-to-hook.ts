import { request, type Dispatcher } from 'undici';
import { readUpstreamBody } from '../http-body/bounded-body.ts';
import { SERVER_VERSION } from '../version.ts';
import type { HookSettings } from './hook-settings.ts';

/** A hook's answer is a small JSON object; anything bigger is cut (and then fails to parse). */
const MAX_ANSWER_BYTES = 64 * 1024;

export interface HookAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: Buffer;
}

/** A call that got no answer: the reason says why in a few words, never with the URL (it may hold a credential). */
export class HookCallError extends Error {
  /** Worth another try (a webhook retries): network trouble and timeouts are, a cancelled call is not. */
  readonly transient: boolean;
  constructor(reason: string, transient: boolean) {
    super(reason);
    this.name = 'HookCallError';
    this.transient = transient;
  }
}

/**
 * POSTs a JSON body to a hook with its headers, within its timeout (connect to the answer's last
 * byte). `signal` cancels the call (the client left, the gateway is stopping).
 */
export async function postToHook(
  hook: HookSettings,
  body: string,
  options: { dispatcher: Dispatcher; signal?: AbortSignal; headers?: Record<string, string> },
): Promise<HookAnswer> {
  const timeout = AbortSignal.timeout(hook.timeoutMs);
  const signal = options.signal === undefined ? timeout : AbortSignal.any([timeout, options.signal]);
  try {
    const answer = await request(hook.url, {
      method: 'POST',
      dispatcher: options.dispatcher,
      signal,
      headers: { 'user-agent': `gateway/${SERVER_VERSION}`, ...hook.headers, ...options.headers, 'content-type': 'application/json' },
      body,
    });
    const text = await readUpstreamBody(answer.body, MAX_ANSWER_BYTES);
    return { status: answer.statusCode, headers: answer.headers, body: text };
  } catch (error) {
    if (timeout.aborted) throw new HookCallError(`no answer within ${hook.timeoutMs} ms`, true);
    if (options.signal?.aborted === true) throw new HookCallError('cancelled', false);
    throw new HookCallError(networkReason(error), true);
  }
}

function networkReason(error: unknown): string {
  const code = (error as { code?: unknown }).code ?? (error as { cause?: { code?: unknown } }).cause?.code;
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return 'connection reset';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host not found';
    case 'UND_ERR_CONNECT_TIMEOUT':
      return 'connect timeout';
    case 'CERT_HAS_EXPIRED':
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
      return `TLS: ${String(code)}`;
    default:
      return typeof code === 'string' ? code : 'network error';
  }
}
