import { STATUS_CODES, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { INGRESS } from '../gateway/ingress.ts';
import { gatewayError } from '../ir/index.ts';

/**
 * Node answers a request it cannot parse (400), headers too large (431) or a request that took
 * too long to arrive (408) with an empty body. These give a body in the OpenAI error shape (the
 * most common client; nothing of the request, its path included, can be trusted to say which
 * protocol it speaks), then close the connection.
 */
export function answerClientErrors(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    // Nothing to answer: the client left, or a response already began on this connection.
    const inProgress = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (error.code === 'ECONNRESET' || !socket.writable || inProgress?.headersSent === true) return void socket.destroy();
    const status = statusFor(error.code);
    const envelope = INGRESS.openai.codec.encodeError(
      gatewayError(status === 408 ? 'timeout' : 'invalid_request', messageFor(status), { status, code: codeFor(status) }),
    );
    const body = Buffer.from(envelope.body);
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${envelope.body}`,
    );
    // end() waits for the client's side; a client that never closes is not waited for.
    setTimeout(() => socket.destroy(), 1000).unref();
  });
}

function statusFor(code: string | undefined): number {
  if (code === 'HPE_HEADER_OVERFLOW') return 431;
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return 408;
  return 400;
}

function messageFor(status: number): string {
  if (status === 431) return 'the request headers are too large';
  if (status === 408) return 'the request did not arrive in time';
  return 'the request is not valid HTTP';
}

function codeFor(status: number): string {
  if (status === 431) return 'headers_too_large';
  if (status === 408) return 'request_timeout';
  return 'malformed_request';
}
