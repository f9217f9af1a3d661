// The minimal proxy served by two threads (main + one worker) on one port with SO_REUSEPORT, as the gateway's workers: 2 does.
import { Agent, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isMainThread, Worker, workerData } from 'node:worker_threads';

const upstream = new URL(process.env.UPSTREAM ?? 'http://127.0.0.1:1');
const agent = new Agent({ keepAlive: true, maxSockets: 1024 });
const server = createServer({ keepAlive: true }, (req, res) => {
  const out = request({ host: upstream.hostname, port: upstream.port, path: req.url, method: req.method, headers: req.headers, agent }, (up) => {
    res.writeHead(up.statusCode ?? 502, up.headers);
    up.pipe(res);
  });
  out.on('error', () => {
    res.writeHead(502);
    res.end();
  });
  req.pipe(out);
});
const port = isMainThread ? 0 : (workerData as number);
server.listen({ port, host: '127.0.0.1', reusePort: true }, () => {
  const bound = (server.address() as AddressInfo).port;
  if (isMainThread) {
    const w = new Worker(new URL(import.meta.url), { workerData: bound });
    w.once('online', () => setTimeout(() => console.log(JSON.stringify({ url: `http://127.0.0.1:${bound}` })), 300));
  }
});
