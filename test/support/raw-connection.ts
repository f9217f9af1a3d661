// A TCP connection driven byte by byte, for clients no HTTP library would be: one that stalls in
// its headers or body, or stays idle. Records what the server sent and when it closed.
import { connect, type Socket } from 'node:net';

export interface RawConnection {
  readonly socket: Socket;
  /** Resolves when the server closes (or resets) the connection. */
  readonly closed: Promise<{ afterMs: number; text: string }>;
  /** Resolves once the connection is established. */
  readonly connected: Promise<void>;
  /** Everything received so far. */
  received(): string;
}

export function openRaw(url: string, first?: string): RawConnection {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  const started = performance.now();
  let text = '';
  socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
  socket.on('error', () => {}); // a reset is one way the server closes
  const connected = new Promise<void>((resolve) =>
    socket.once('connect', () => {
      if (first !== undefined) socket.write(first);
      resolve();
    }),
  );
  const closed = new Promise<{ afterMs: number; text: string }>((resolve) =>
    socket.once('close', () => resolve({ afterMs: performance.now() - started, text })),
  );
  return { socket, closed, connected, received: () => text };
}

/** The body of a raw HTTP/1.1 response (after the blank line), parsed as JSON. */
export function rawJsonBody(text: string): unknown {
  const at = text.indexOf('\r\n\r\n');
  return JSON.parse(text.slice(at + 4));
}
