// The floor's request handling, shared by the minimal proxy on one thread and on two: a
// keep-alive reverse proxy with no framework, no parsing, no translation. Every request goes to
// `upstream` and its answer is piped back.
import { Agent, createServer, request, type Server } from 'node:http';

export function createProxyServer(upstream: URL): Server {
  const agent = new Agent({ keepAlive: true, maxSockets: 1024 });
  return createServer({ keepAlive: true }, (req, res) => {
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
}
