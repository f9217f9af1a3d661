import { parentPort, workerData } from 'node:worker_threads';
import { RoutingTable } from '../gateway/routing-table.ts';
import { GovernanceProxy } from '../governance/governance-channel.ts';
import { createLogger } from '../observability/logger.ts';
import { TranslationStats } from '../observability/translation-stats.ts';
import { SYSTEM_CLOCK } from '../routing/clock.ts';
import { RoutingMemory } from '../routing/routing-memory.ts';
import { Dispatchers } from '../upstream/dispatchers.ts';
import { createDataPlaneServer } from './data-plane-server.ts';
import { closeServer, listen } from './listen.ts';
import type { WorkerCommand, WorkerEvent, WorkerStart } from './worker-protocol.ts';

/**
 * A data-plane worker thread: its own HTTP server on the shared port, its own upstream connection
 * pools, routing state in the shared memory, governance answered by the main thread.
 */
export async function runDataPlaneWorker(): Promise<void> {
  const start = workerData as WorkerStart;
  const port = parentPort;
  if (port === null) throw new Error('runDataPlaneWorker runs in a worker thread');
  const { config } = start;
  const log = createLogger(config.logLevel).child({ worker: start.worker });
  const dispatchers = new Dispatchers();
  const governance = start.governance === undefined ? undefined : new GovernanceProxy(start.governance);
  const routing = new RoutingTable(config, SYSTEM_CLOCK, { memory: new RoutingMemory(start.routing.layout, start.routing.buffer), worker: start.worker });
  const server = createDataPlaneServer({
    config, routing, dispatchers, clock: SYSTEM_CLOCK, log, translations: new TranslationStats(), ...(governance !== undefined && { governance }),
  });
  let requests = 0;
  server.on('request', () => requests++);
  const send = (event: WorkerEvent) => port.postMessage(event);
  port.on('message', (command: WorkerCommand) => {
    if (command.type === 'telemetry') {
      send({ type: 'telemetry', id: command.id, telemetry: { worker: start.worker, requests } });
      return;
    }
    // Stop taking connections, finish the requests in flight (their spend settles through the
    // governance port, which stays open until then), then say so.
    void closeServer(server)
      .then(() => dispatchers.close())
      .finally(() => {
        governance?.close();
        send({ type: 'closed' });
        port.close();
      });
  });
  const url = await listen(server, { host: config.listen.host, port: start.port }, { reusePort: true });
  send({ type: 'listening', url });
}
