// The practical floor for any Node gateway: a keep-alive reverse proxy with no framework, no
// parsing, no translation. It forwards every request to UPSTREAM and pipes the answer back.
import { Agent, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

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
server.listen(0, '127.0.0.1', () => {
  console.log(JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }));
});
