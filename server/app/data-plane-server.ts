import { createServer, type Server } from 'node:http';
import type { Gateway } from '../gateway/gateway-context.ts';
import { createDataPlaneApp, type DataPlaneExtras } from '../http/data-plane-app.ts';
import { withFastChatRoutes } from '../http/fast-routes.ts';

/** The data plane's HTTP server, the same in the main thread and in each worker thread. */
export function createDataPlaneServer(gateway: Gateway, extras: DataPlaneExtras = {}): Server {
  // requestTimeout 0: a long stream is not a slow request; idle upstreams are timed per lane.
  return createServer({ keepAlive: true, requestTimeout: 0 }, withFastChatRoutes(gateway, createDataPlaneApp(gateway, extras).callback()));
}
