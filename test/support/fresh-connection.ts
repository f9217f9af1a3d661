// One HTTP request on a connection of its own (no keep-alive agent), so that with several
// data-plane workers on one port the kernel spreads requests over all of them.
import { request as httpRequest } from 'node:http';

export function onNewConnection(
  url: string,
  options: { method?: string; body?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method: options.method ?? 'GET', agent: false, headers: { 'content-type': 'application/json', ...options.headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}
