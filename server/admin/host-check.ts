import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorBody } from './reply.ts';

/**
 * An admin plane without a token answers only requests whose Host names it: its configured host,
 * its bound address or localhost (any port). A browser tricked by DNS rebinding sends the
 * attacker's name as Host, so the page cannot use the open plane; curl, the CLI and the
 * generated clients send the address they were given.
 */
export function refuseForeignHosts(
  listener: (req: IncomingMessage, res: ServerResponse) => void,
  names: readonly string[],
): (req: IncomingMessage, res: ServerResponse) => void {
  const allowed = new Set(names.map((n) => n.toLowerCase()));
  return (req, res) => {
    const host = hostName(req.headers.host);
    if (host !== undefined && allowed.has(host)) return listener(req, res);
    const body = JSON.stringify(
      errorBody('host_not_allowed', 'this admin plane has no token and answers only requests addressed to it by its own address or localhost'),
    );
    res.writeHead(403, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) });
    res.end(body);
  };
}

/** The Host header's name without its port, lower case, IPv6 without brackets. */
function hostName(header: string | undefined): string | undefined {
  if (header === undefined || header === '') return undefined;
  const value = header.trim().toLowerCase();
  if (value.startsWith('[')) {
    const end = value.indexOf(']');
    return end < 0 ? undefined : value.slice(1, end);
  }
  const colon = value.indexOf(':');
  return colon < 0 ? value : value.slice(0, colon);
}
