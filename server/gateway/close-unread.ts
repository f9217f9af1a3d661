import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

/** How long a refused client may still read its answer before its connection is dropped. */
const LINGER_MS = 1000;

/** The header that makes Node's HTTP server end the connection once the answer is written. */
const CLOSE: Readonly<Record<string, string>> = { connection: 'close' };

/**
 * For a request answered before its body was read (no key, a rate limit, no room for bodies):
 * the answer says `connection: close`, and once it is written the socket stops reading, so what
 * the client still sends stays in the kernel's buffer (never in the process), sends its FIN, and
 * is destroyed after LINGER_MS, giving the client time to read its answer (destroying at once,
 * with unread bytes, resets the connection and may discard the answer before it is read). The
 * pause uses the flag Node's HTTP server sets itself to stop reading a flood of pipelined
 * requests (`_paused`), so the server does not resume reading to drain the body.
 */
export function closeUnread(req: IncomingMessage): Readonly<Record<string, string>> {
  const socket = req.socket as Socket & { _paused?: boolean };
  // Node's HTTP server calls destroySoon() once a `connection: close` answer is written.
  socket.destroySoon = function lingeringClose(this: Socket & { _paused?: boolean }): void {
    this._paused = true;
    this.pause();
    this.end();
    const timer = setTimeout(() => this.destroy(), LINGER_MS);
    timer.unref();
    this.once('close', () => clearTimeout(timer));
  };
  return CLOSE;
}
