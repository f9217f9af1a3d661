// What the CLI says when something goes wrong: a sentence a person can act on, on stderr, and an
// exit code (1: the call failed; 2: the command line is wrong). With --json the same sentence comes
// as one JSON object on stderr (see errorJson), with a code a program can branch on.
import type { Connection } from './connection.ts';
import { CERT_FLAG, KEY_FLAG } from './tls-flags.ts';

/** The code of a failure: the admin API's own error code when it answered with one, else one of these. */
export type FailureCode = 'usage' | 'unauthorized' | 'unreachable' | 'timeout' | 'tls' | 'unexpected_answer' | 'no_store' | 'internal' | (string & {});

export class CliError extends Error {
  readonly exitCode: number;
  readonly code: FailureCode;
  /** The HTTP status of the admin API's answer, when there was one. */
  readonly status: number | undefined;
  /** A refused configuration's problems, each `file:line:column: path: message`. */
  readonly problems: readonly string[] | undefined;
  constructor(message: string, exitCode = 1, code: FailureCode = 'unreachable', status?: number, problems?: readonly string[]) {
    super(message);
    this.exitCode = exitCode;
    this.code = code;
    this.status = status;
    this.problems = problems;
  }
}

/** A bad flag or argument: exit code 2, like commander's own usage errors. */
export const usageError = (message: string): CliError => new CliError(message, 2, 'usage');

/** The --json form of a failure: {"error":{"code","message","status"?,"problems"?,"exit_code"}}, one line. */
export function errorJson(message: string, code: FailureCode, exitCode: number, status?: number, problems?: readonly string[]): string {
  return `${JSON.stringify({ error: { code, message, ...(status !== undefined && { status }), ...(problems !== undefined && { problems }), exit_code: exitCode } })}\n`;
}

/** A failure as a person reads it: the sentence, then a refused configuration's problems one a line. */
export function errorText(error: CliError): string {
  return `gateway-admin: ${error.message}\n${(error.problems ?? []).map((p) => `  ${p}\n`).join('')}`;
}

/** A configuration with problems (refused by the gateway, or found by validate). */
export function configProblems(message: string, problems: readonly string[], status?: number): CliError {
  return new CliError(`${message} (${problems.length} problem${problems.length === 1 ? '' : 's'}):`, 1, 'config_invalid', status, problems);
}

/** The shape every operation of the generated client resolves to. */
export interface OperationResult<T> {
  data?: T | undefined;
  error?: unknown;
  response?: Response | undefined;
}

/** The answer's data, or a CliError that says why there is none. */
export async function call<T>(connection: Connection, operation: Promise<OperationResult<T>>): Promise<T> {
  const { data, error, response } = await operation;
  if (response === undefined) throw transportFailure(connection, error);
  if (error !== undefined || data === undefined) throw answerFailure(connection, response.status, error);
  return data;
}

function answerFailure(connection: Connection, status: number, body: unknown): CliError {
  const apiError = (body as { error?: { code?: unknown; message?: unknown; problems?: unknown } } | undefined)?.error;
  const code = typeof apiError?.code === 'string' ? apiError.code : undefined;
  const message = typeof apiError?.message === 'string' ? apiError.message : undefined;
  if (status === 401) {
    return new CliError(
      connection.tokenSource === undefined
        ? `the admin plane at ${connection.endpoint} needs an admin token (401 unauthorized): pass --token or set GATEWAY_ADMIN_TOKEN`
        : `the admin plane at ${connection.endpoint} refused the admin token from ${connection.tokenSource} (401 unauthorized): check the token`,
      1,
      code ?? 'unauthorized',
      status,
    );
  }
  if (code === undefined) {
    const text = typeof body === 'string' && body.trim() !== '' ? `: ${body.trim().slice(0, 200)}` : '';
    return new CliError(
      `unexpected answer from ${connection.endpoint} (HTTP ${status})${text}: is --endpoint the gateway's admin plane?`,
      1,
      'unexpected_answer',
      status,
    );
  }
  if (code === 'config_invalid' && Array.isArray(apiError?.problems)) {
    return configProblems('the gateway refused the configuration; the running one keeps serving', apiError.problems.map(String), status);
  }
  if (code === 'no_store') return new CliError(`the gateway keeps no keys (${message ?? code}): set db_path in its config.yaml`, 1, code, status);
  return new CliError(`${message ?? code} (HTTP ${status} ${code})`, 1, code, status);
}

const SERVER_NOT_TRUSTED = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
  'CERT_SIGNATURE_FAILURE',
  'CERT_REJECTED',
]);
const UNREACHABLE: Record<string, string> = {
  ECONNREFUSED: 'connection refused (is the gateway running, and is its admin plane on this address?)',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  ETIMEDOUT: 'timed out',
  UND_ERR_CONNECT_TIMEOUT: 'timed out while connecting',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
};

/** The generated client returns network and TLS failures in `error` with no response. */
export function transportFailure(connection: Connection, error: unknown): CliError {
  const cause = (error as { cause?: unknown } | undefined)?.cause ?? error;
  const code = String((cause as { code?: unknown } | undefined)?.code ?? '');
  const detail = cause instanceof Error ? cause.message.split('\n')[0]!.replace(/^[0-9A-F]+:error:[0-9A-F]+:/, '') : String(cause);
  const at = connection.endpoint;
  const https = at.startsWith('https:');
  if (cause instanceof Error && cause.name === 'TimeoutError') return new CliError(`no answer from the admin plane at ${at} in time (${detail})`, 1, 'timeout');
  const tls = (text: string) => new CliError(text, 1, 'tls');
  const unreachable = UNREACHABLE[code];
  if (unreachable !== undefined) return new CliError(`cannot reach the admin plane at ${at}: ${unreachable}`, 1, 'unreachable');
  if (SERVER_NOT_TRUSTED.has(code)) {
    return tls(
      `TLS failure: the admin plane's certificate at ${at} is not trusted (${detail}): ` +
        (connection.tls.caCert === undefined ? 'pass the CA that signed it with --ca-cert <file>' : `it is not signed by the CA in ${connection.tls.caCert}`),
    );
  }
  if (code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID')
    return tls(`TLS failure: the admin plane's certificate at ${at} is not valid now (${detail})`);
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return tls(`TLS failure: the admin plane's certificate does not name the host of ${at} (${detail})`);
  // node:tls names OpenSSL's reason in the code, or (for a failed write) only in the message, as EPROTO.
  if (
    code === 'ERR_SSL_WRONG_VERSION_NUMBER' ||
    code === 'ERR_SSL_PACKET_LENGTH_TOO_LONG' ||
    (code === 'EPROTO' && /wrong version number|packet length too long/.test(detail))
  ) {
    return tls(`TLS failure: ${at} does not speak TLS: use an http:// endpoint (or set admin_tls on the gateway)`);
  }
  if (/ALERT_CERTIFICATE_REQUIRED/.test(code) || (https && connection.tls.clientCert === undefined && isClosed(code))) {
    return tls(`TLS failure: the admin plane at ${at} requires a client certificate (mTLS) and closed the connection: pass ${CERT_FLAG} and ${KEY_FLAG}`);
  }
  if (/ALERT_(UNKNOWN_CA|BAD_CERTIFICATE|CERTIFICATE_UNKNOWN|UNSUPPORTED_CERTIFICATE)/.test(code) || (https && isClosed(code))) {
    return tls(
      `TLS failure: the admin plane at ${at} rejected the client certificate ${connection.tls.clientCert ?? ''}`.trimEnd() +
        ' and closed the connection: it must be signed by the CA the gateway trusts (admin_tls.client_ca)',
    );
  }
  if (isClosed(code))
    return new CliError(`the admin plane at ${at} closed the connection without answering: if it serves HTTPS (admin_tls), use an https:// endpoint`);
  if (code.startsWith('ERR_SSL') || code.startsWith('ERR_TLS') || code.startsWith('ERR_OSSL') || code === 'EPROTO')
    return tls(`TLS failure talking to ${at}: ${detail}`);
  return new CliError(`cannot reach the admin plane at ${at}: ${detail}`);
}

const isClosed = (code: string) => code === 'UND_ERR_SOCKET' || code === 'ECONNRESET' || code === 'EPIPE';
