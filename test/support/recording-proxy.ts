// A loopback HTTP proxy in front of the gateway that keeps the bytes of every answer it relays,
// so a test can hand an official SDK the proxy's URL and still inspect the exact wire bytes.
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordingProxy {
  readonly url: string;
  /** The relayed answer bodies, oldest first. */
  readonly bodies: Buffer[];
  close(): Promise<void>;
}

export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const bodies: Buffer[] = [];
  const { hostname, port } = new URL(target);
  const server: Server = createServer((req, res) => {
    const upstream = httpRequest({ hostname, port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        res.write(chunk);
      });
      answer.on('end', () => {
        bodies.push(Buffer.concat(chunks));
        res.end();
      });
    });
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bodies,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
