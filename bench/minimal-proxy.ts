// The practical floor for any Node gateway: a keep-alive reverse proxy with no framework, no
// parsing, no translation (proxy-server.ts). It forwards every request to UPSTREAM and pipes the answer back.
import type { AddressInfo } from 'node:net';
import { createProxyServer } from './proxy-server.ts';

const server = createProxyServer(new URL(process.env.UPSTREAM ?? 'http://127.0.0.1:1'));
server.listen(0, '127.0.0.1', () => {
  console.log(JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }));
});
