import { createServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { LiveGateway } from '../gateway/gateway-context.ts';
import { answerClientErrors } from '../http/client-errors.ts';
import { createDataPlaneApp, type DataPlaneExtras } from '../http/data-plane-app.ts';
import { withFastChatRoutes } from '../http/fast-routes.ts';
import { refuseConnection } from '../http/refuse-connection.ts';
import { connectionCap } from './connection-cap.ts';
import { ConnectionGuard } from './connection-guard.ts';
import { secureContextOptions } from '../config/tls-material.ts';

export interface DataPlaneServer {
  readonly server: Server;
  /** Its connection cap and its drain at shutdown. */
  readonly guard: ConnectionGuard;
}

/**
 * The data plane's HTTP server, the same in the main thread and in each worker thread. Its server
 * settings, connection cap and TLS on/off are the starting configuration's (they need a restart).
 */
export function createDataPlaneServer(live: LiveGateway, extras: DataPlaneExtras = {}): DataPlaneServer {
  const gateway = live.current;
  const settings = gateway.config.server;
  const guard = new ConnectionGuard({
    maxConnections: connectionCap(settings.maxConnections, gateway.config.workers),
    refuse: refuseConnection,
    alwaysServed: (req) => req.method === 'GET' && (req.url === '/healthz' || req.url === '/readyz'),
    headerTimeoutMs: settings.headerTimeoutMs,
  });
  // Slow and idle clients are timed (headers, the request's arrival, keep-alive); the answer is
  // not: requestTimeout ends once the body is read, so a stream lasts as long as its upstream
  // writes (idle upstreams are timed per lane).
  const options = {
    keepAlive: true,
    headersTimeout: settings.headerTimeoutMs,
    requestTimeout: settings.requestTimeoutMs,
    keepAliveTimeout: settings.keepAliveTimeoutMs,
    // Node checks the header and request timers this often (30 s by default: too coarse for them).
    connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(settings.headerTimeoutMs / 4))),
  };
  const listener = guard.listener(withFastChatRoutes(live, createDataPlaneApp(live, extras).callback()));
  const tls = gateway.config.tls;
  const server: Server =
    tls === undefined
      ? createServer(options, listener)
      : createHttpsServer(
          {
            ...options,
            ...secureContextOptions(tls),
            // A handshake is bounded like headers are (Node's default is two minutes).
            handshakeTimeout: settings.headerTimeoutMs,
            // mTLS: without a certificate the client CA signed, the handshake fails (no HTTP answer).
            ...(tls.clientCa !== undefined && { requestCert: true, rejectUnauthorized: true }),
          },
          listener,
        );
  guard.watch(server);
  answerClientErrors(server);
  return { server, guard };
}
