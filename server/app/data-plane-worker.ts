import { parentPort, workerData } from 'node:worker_threads';
import { RoutingTable } from '../gateway/routing-table.ts';
import { receiveBlocks } from '../routing/routing-memory.ts';
import { carryBodyMemory } from '../gateway/body-memory.ts';
import type { Gateway } from '../gateway/gateway-context.ts';
import { GovernanceProxy } from '../governance/governance-channel.ts';
import { Hooks } from '../hooks/hooks.ts';
import { createLogger } from '../shared/logger.ts';
import { SYSTEM_CLOCK } from '../shared/clock.ts';
import { Dispatchers } from '../upstream/dispatchers.ts';
import { MediaFetcher } from '../media/media-fetcher.ts';
import { createDataPlaneServer } from './data-plane-server.ts';
import { inFlightSettled } from './in-flight-settled.ts';
import { listen } from './listen.ts';
import { PendingReplies } from './pending-replies.ts';
import { Readiness } from './readiness.ts';
import { RecordForwarder } from './record-forwarder.ts';
import { LogRelay } from './log-relay.ts';
import { RequestLog } from '../observability/request-log.ts';
import { WorkerRequestMetrics } from '../observability/metrics.ts';
import { RequestStats } from '../observability/request-stats.ts';
import type { RequestObserver } from '../observability/request-record.ts';
import { ServingState } from './serving-state.ts';
import { renewServerTls } from './tls-rotation.ts';
import type { StatsSnapshot } from '../observability/stats-snapshot.ts';
import type { WorkerCommand, WorkerEvent, WorkerStart } from './worker-protocol.ts';
import { compactHeap } from '../shared/compact-heap.ts';

/**
 * A data-plane worker thread: its own HTTP server on the shared port, its own upstream connection
 * pools and gate hooks; routing state in the shared memory; governance answered by the main
 * thread. Its finished requests are observed here (the request log line, metrics, /stats's
 * totals), so no message crosses threads per request: its log lines go to the main thread once a
 * turn as one string, its metrics and totals when asked. Records are posted to the main thread
 * only for the observers that must be one per gateway (OTLP spans, webhooks).
 */
/** After a cut, how long requests may take to settle their spend and send their records. */
const SETTLE_AFTER_CUT_MS = 5000;

export async function runDataPlaneWorker(): Promise<void> {
  const start = workerData as WorkerStart;
  const port = parentPort;
  if (port === null) throw new Error('runDataPlaneWorker runs in a worker thread');
  const { config } = start;
  const relay = new LogRelay((text) => port.postMessage({ type: 'log', text } satisfies WorkerEvent));
  const log = createLogger(config.logLevel, relay).child({ worker: start.worker });
  const dispatchers = new Dispatchers();
  const media = new MediaFetcher(config.mediaFetch);
  const governance = start.governance === undefined ? undefined : new GovernanceProxy(start.governance);
  const routing = new RoutingTable(config, SYSTEM_CLOCK, { blocks: start.routing, worker: start.worker });
  // Gates only: webhooks are observers, and observers run in the main thread.
  const hooks = new Hooks(
    config.hooks.filter((h) => h.kind === 'gate'),
    { log },
  );
  const forwarder = start.forwardRecords ? new RecordForwarder(port) : undefined;
  const requests = new RequestStats();
  const serving = new ServingState(start.worker, hooks.gates, requests);
  const metrics = config.metrics.enabled || config.otlp !== undefined ? new WorkerRequestMetrics() : undefined;
  const observers: RequestObserver[] = [
    ...(log.isLevelEnabled('info') ? [new RequestLog(log)] : []),
    ...(metrics === undefined ? [] : [metrics.observer]),
    requests,
    ...(forwarder === undefined ? [] : [forwarder]),
  ];
  const send = (event: WorkerEvent) => port.postMessage(event);
  const metricsReplies = new PendingReplies<string>();
  const statsReplies = new PendingReplies<StatsSnapshot | undefined>();
  let contentType = 'text/plain; version=0.0.4; charset=utf-8';
  // Self-serve keys: this worker verifies tokens itself; the main thread issues the keys.
  const selfServe =
    config.auth === undefined || governance === undefined
      ? undefined
      : (await import('../auth/self-serve.ts')).createSelfServe(config, { issue: (person) => governance.issueKey(person) }, { log });
  const live: { current: Gateway } = {
    current: {
      config,
      routing,
      dispatchers,
      media,
      clock: SYSTEM_CLOCK,
      log,
      translations: serving.translations,
      observers,
      gates: hooks.gates,
      inFlight: serving.inFlight,
      ...(governance !== undefined && { governance }),
    },
  };
  /** A configuration change prepared and waiting for the main thread's word to switch. */
  let prepared: { id: number; gateway: Gateway } | undefined;
  const { server, guard } = createDataPlaneServer(live, {
    ...(config.metrics.enabled && {
      metrics: {
        get contentType() {
          return contentType;
        },
        // The main thread renders the gateway's one registry; an empty scrape if it cannot in time.
        render: () => metricsReplies.ask((id) => send({ type: 'metrics', id }), 10_000, ''),
      },
    }),
    ...(selfServe !== undefined && { selfServe }),
    // The main thread counts every worker's requests: it reads the snapshot (a 503 if it cannot in time).
    stats: { snapshot: () => statsReplies.ask((id) => send({ type: 'stats', id }), 10_000, undefined) },
    readiness: new Readiness(start.readiness),
  });
  serving.countRequestsOf(server);
  port.on('message', (command: WorkerCommand) => {
    switch (command.type) {
      case 'telemetry': {
        const telemetry = serving.telemetry();
        if (command.metrics !== true || metrics === undefined) send({ type: 'telemetry', id: command.id, telemetry });
        else void metrics.json().then((json) => send({ type: 'telemetry', id: command.id, telemetry: { ...telemetry, metrics: json } }));
        return;
      }
      case 'tls':
        renewServerTls(server, command.tls);
        log.info('data-plane certificates renewed for new connections');
        return;
      case 'config': {
        const cpu = process.threadCpuUsage();
        try {
          const blocks = receiveBlocks(command.routing, live.current.routing.blocks);
          const routingNext = new RoutingTable(command.config, SYSTEM_CLOCK, { blocks, worker: start.worker, previous: live.current.routing });
          prepared = { id: command.id, gateway: { ...live.current, config: command.config, routing: routingNext } };
          const used = process.threadCpuUsage(cpu);
          send({ type: 'config-ready', id: command.id, cpuMs: (used.user + used.system) / 1000 });
        } catch (error) {
          prepared = undefined;
          send({ type: 'config-ready', id: command.id, error: error instanceof Error ? error.message : String(error) });
        }
        return;
      }
      case 'config-commit':
        if (prepared?.id !== command.id) return;
        carryBodyMemory(live.current.config, prepared.gateway.config);
        live.current = prepared.gateway;
        prepared = undefined;
        return;
      case 'config-abort':
        if (prepared?.id === command.id) prepared = undefined;
        return;
      case 'metrics':
        contentType = command.contentType;
        metricsReplies.answer(command.id, command.text);
        return;
      case 'stats':
        statsReplies.answer(command.id, command.snapshot);
        return;
      case 'close': {
        // Stop taking connections, give the requests in flight up to the deadline, cut the rest;
        // every request then settles its spend (through the governance port, open until then)
        // and sends its record; then say so.
        let cut = 0;
        void guard
          .drain(server, command.deadlineMs)
          .then(async (drained) => {
            cut = drained.cut;
            if (cut > 0 && !(await inFlightSettled(serving.inFlight, SETTLE_AFTER_CUT_MS)))
              log.warn({ inFlight: serving.inFlight.current }, 'requests still settling after the shutdown cut');
          })
          .then(() => Promise.all([dispatchers.close(), media.close(), hooks.close(0)]))
          .finally(() => {
            forwarder?.flush();
            relay.flush();
            governance?.close();
            send({ type: 'closed', cut });
            port.close();
          });
      }
    }
  });
  // Its start's heap given back before it takes a request (compact-heap.ts).
  compactHeap('serving');
  const url = await listen(server, { host: config.listen.host, port: start.port }, { share: 'join' });
  send({ type: 'listening', url });
}
