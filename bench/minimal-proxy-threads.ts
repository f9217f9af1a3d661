// The minimal proxy served by two threads (main + one worker) on one port with SO_REUSEPORT, as the gateway's workers: 2 does.
import type { AddressInfo } from 'node:net';
import { isMainThread, Worker, workerData } from 'node:worker_threads';
import { createProxyServer } from './proxy-server.ts';

const server = createProxyServer(new URL(process.env.UPSTREAM ?? 'http://127.0.0.1:1'));
const port = isMainThread ? 0 : (workerData as number);
server.listen({ port, host: '127.0.0.1', reusePort: true }, () => {
  const bound = (server.address() as AddressInfo).port;
  if (isMainThread) {
    const w = new Worker(new URL(import.meta.url), { workerData: bound });
    w.once('online', () => setTimeout(() => console.log(JSON.stringify({ url: `http://127.0.0.1:${bound}` })), 300));
  }
});
