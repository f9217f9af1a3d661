import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorBody } from '../admin/reply.ts';

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * A request listener made by `build` when the first request arrives, then used for every request.
 * The admin plane is built this way (openapi-backend, Ajv, the spec and the admin handlers): most
 * gateways never get an admin request, and building it at start cost the main thread about 7 MiB
 * of memory for good (bench/RESULTS.md, issue 19). Requests that arrive while it is being built
 * wait for it; their bodies stay unread until then. A build that fails is logged by `onError`,
 * answered 500, and tried again by the next request.
 */
export function lazyListener(build: () => Promise<Listener>, onError: (error: unknown) => void): Listener {
  let built: Promise<Listener> | undefined;
  return (req, res) => {
    built ??= build();
    built.then(
      (listener) => listener(req, res),
      (error: unknown) => {
        built = undefined;
        onError(error);
        const body = JSON.stringify(errorBody('internal_error', 'the admin plane could not be started: see the gateway log'));
        res.writeHead(500, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)), connection: 'close' });
        res.end(body);
      },
    );
  };
}
