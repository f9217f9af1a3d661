// The fetch the admin client sends through: node:http / node:https with the TLS settings of the
// command line (CA, client certificate, --insecure). Built on Node's own modules rather than undici
// so the CLI runs on any Node from 20 on (the npm package) and adds nothing to the executable.
import { request as httpRequest, Agent as HttpAgent, type IncomingMessage } from 'node:http';
import { request as httpsRequest, Agent as HttpsAgent } from 'node:https';

export interface TlsSettings {
  ca?: string | undefined;
  cert?: string | undefined;
  key?: string | undefined;
  rejectUnauthorized: boolean;
}

export interface NodeFetch {
  fetch(request: Request): Promise<Response>;
  close(): void;
}

/** A fetch for the generated client; every call must end within `timeoutMs`, connect to last byte. */
export function nodeFetch(tls: TlsSettings, timeoutMs: number): NodeFetch {
  const httpsAgent = new HttpsAgent({ keepAlive: true, ...tls });
  const httpAgent = new HttpAgent({ keepAlive: true });
  async function send(request: Request): Promise<Response> {
    const body = request.body === null ? undefined : Buffer.from(await request.arrayBuffer());
    const url = new URL(request.url);
    const https = url.protocol === 'https:';
    return new Promise((resolve, reject) => {
      const req = (https ? httpsRequest : httpRequest)(
        url,
        { method: request.method, headers: Object.fromEntries(request.headers), agent: https ? httpsAgent : httpAgent },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', fail);
          res.on('end', () => {
            clearTimeout(timer);
            const status = res.statusCode ?? 502;
            resolve(new Response(status === 204 || status === 304 ? null : Buffer.concat(chunks), { status, headers: headersOf(res) }));
          });
        },
      );
      // The same name fetch gives its timeouts, so callers can tell "too slow" from "unreachable".
      const timer = setTimeout(() => req.destroy(Object.assign(new Error(`no answer within ${timeoutMs / 1000} s`), { name: 'TimeoutError' })), timeoutMs);
      function fail(error: Error): void {
        clearTimeout(timer);
        reject(error);
      }
      req.on('error', fail);
      req.end(body);
    });
  }
  return {
    fetch: send,
    close: () => {
      httpsAgent.destroy();
      httpAgent.destroy();
    },
  };
}

function headersOf(res: IncomingMessage): Headers {
  const headers = new Headers();
  for (let i = 0; i + 1 < res.rawHeaders.length; i += 2) headers.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!);
  return headers;
}
