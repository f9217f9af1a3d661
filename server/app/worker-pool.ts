import { MessageChannel, Worker } from 'node:worker_threads';
import type { RuntimeConfig, TlsMaterial } from '../config/runtime-config.ts';
import { blocksDelta, type RoutingBlocks } from '../routing/routing-memory.ts';
import { serveGovernance } from '../governance/governance-channel.ts';
import type { OwnerGovernance } from '../governance/governance.ts';
import type { KeyIssuer } from '../auth/key-issuer.ts';
import type { Logger } from '../shared/logger.ts';
import type { RequestContent } from '../observability/request-content.ts';
import type { RequestObserver, RequestRecord } from '../observability/request-record.ts';
import type { StatsSnapshot } from '../observability/stats-snapshot.ts';
import { PendingReplies } from './pending-replies.ts';
import type { Readiness } from './readiness.ts';
import { workerScript } from './worker-script.ts';
import type { WorkerCommand, WorkerEvent, WorkerStart, WorkerTelemetry } from './worker-protocol.ts';

export interface WorkerPoolOptions {
  readonly config: RuntimeConfig;
  /** The shared routing blocks of `config` (lane blocks sized for `config.workers`). */
  readonly routing: RoutingBlocks;
  /** A worker ended without finishing its requests: give back the lane slots and probes it held. */
  releaseWorker(worker: number): void;
  readonly governance?: OwnerGovernance;
  /** Self-serve key issuance, answered here for the workers' /auth/token. */
  readonly keyIssuer?: KeyIssuer;
  /** The data-plane port, bound by the main thread (worker 1) with SO_REUSEPORT. */
  readonly port: number;
  /**
   * The observers that run in the main thread only (OTLP spans, webhooks, an embedder's): the
   * workers post their records here only when there is one. Each worker writes its own request
   * lines (relayed through `writeLog`) and keeps its own metrics and /stats totals.
   */
  readonly observers: readonly RequestObserver[];
  /** Writes a worker's relayed log lines to the main thread's destination. */
  readonly writeLog: (text: string) => void;
  /** Renders GET /metrics for a worker that was scraped; absent when metrics are off. */
  readonly metrics?: { readonly contentType: string; render(): Promise<string> };
  /** Reads GET /stats's snapshot for a worker that was asked. */
  readonly stats?: { snapshot(): Promise<StatsSnapshot | undefined> };
  readonly log: Logger;
  /** Told when a worker is down (exited, not yet listening again) and when all are up. */
  readonly readiness: Readiness;
}

const RESPAWN_DELAY_MS = 1000;
/** Beyond a drain's deadline: time for cut requests to settle (5 s in the worker) and a margin. */
const WORKER_CLOSE_GRACE_MS = 10_000;

/**
 * Data-plane workers 2..N (`config.workers`) as threads joining the port the main thread (worker 1)
 * listens on. A worker that dies is replaced after a pause, and the lane slots and probe it held
 * are given back first.
 */
export class WorkerPool {
  private readonly options: WorkerPoolOptions;
  private readonly workers = new Map<number, Worker>();
  /** Workers listening now. */
  private readonly listening = new Set<number>();
  private closing = false;
  /** The data-plane TLS a worker (re)started now serves: the configured one, or the last SIGHUP's. */
  private tls: TlsMaterial | undefined;
  private readonly telemetryReplies = new PendingReplies<WorkerTelemetry | undefined>();
  private readonly configReplies = new PendingReplies<{ error?: string; cpuMs?: number }>();
  /** The configuration (and its routing blocks) a worker (re)started now serves. */
  private config: RuntimeConfig;
  private routing: RoutingBlocks;

  private constructor(options: WorkerPoolOptions) {
    this.options = options;
    this.tls = options.config.tls;
    this.config = options.config;
    this.routing = options.routing;
  }

  /**
   * Every worker builds the gateway of `config` beside the one it serves (the slow part), then
   * `commit` switches them all at once (one message each, sent in the same tick), or `abort`
   * drops it. `problems`: the workers that could not prepare (then only abort is right).
   */
  async prepareConfig(
    config: RuntimeConfig,
    routing: RoutingBlocks,
    timeoutMs = 30_000,
  ): Promise<{ problems: string[]; cpuMs: number; commit(): void; abort(): void }> {
    // Every worker holds the blocks of the configuration committed last (it started on them or
    // switched to them): only the ones it lacks are sent.
    const delta = blocksDelta(routing, this.routing);
    const asked = [...this.workers].map(([n, worker]) => {
      let id = 0;
      const answer = this.configReplies.ask(
        (askId) => {
          id = askId;
          worker.postMessage({ type: 'config', id, config, routing: delta } satisfies WorkerCommand);
        },
        timeoutMs,
        { error: `did not prepare the configuration within ${timeoutMs} ms` },
      );
      return { n, worker, id, answer };
    });
    const answers = await Promise.all(asked.map(async (a) => ({ ...a, ...(await a.answer) })));
    const problems = answers.filter((a) => a.error !== undefined).map((a) => `data-plane worker ${a.n}: ${a.error}`);
    return {
      problems,
      cpuMs: Math.max(0, ...answers.map((a) => a.cpuMs ?? 0)),
      commit: () => {
        this.config = config;
        this.routing = routing;
        for (const a of answers) a.worker.postMessage({ type: 'config-commit', id: a.id } satisfies WorkerCommand);
        // A worker restarted while this was prepared started on the configuration before it.
        for (const [n, worker] of this.workers) {
          if (answers.some((a) => a.n === n && a.worker === worker)) continue;
          const id = -n;
          worker.postMessage({ type: 'config', id, config, routing: delta } satisfies WorkerCommand);
          worker.postMessage({ type: 'config-commit', id } satisfies WorkerCommand);
        }
      },
      abort: () => {
        for (const a of answers) a.worker.postMessage({ type: 'config-abort', id: a.id } satisfies WorkerCommand);
      },
    };
  }

  /** Every worker serves `tls` to its new connections; a worker restarted later starts with it. */
  renewTls(tls: TlsMaterial): void {
    this.tls = tls;
    for (const worker of this.workers.values()) worker.postMessage({ type: 'tls', tls } satisfies WorkerCommand);
  }

  static async start(options: WorkerPoolOptions): Promise<WorkerPool> {
    const pool = new WorkerPool(options);
    try {
      await Promise.all(Array.from({ length: options.config.workers - 1 }, (_, i) => pool.spawn(i + 2)));
    } catch (error) {
      await pool.close(0);
      throw error;
    }
    return pool;
  }

  /**
   * Asks every running worker about itself (with its request metrics when `metrics`); a worker
   * that does not answer within a second is left out.
   */
  async telemetry(metrics = false): Promise<WorkerTelemetry[]> {
    const answers = [...this.workers.values()].map((worker) =>
      this.telemetryReplies.ask((id) => worker.postMessage({ type: 'telemetry', id, ...(metrics && { metrics }) } satisfies WorkerCommand), 1000, undefined),
    );
    return (await Promise.all(answers)).filter((t) => t !== undefined).sort((a, b) => a.worker - b.worker);
  }

  private async renderMetricsFor(worker: Worker, id: number): Promise<void> {
    const metrics = this.options.metrics;
    let text: string;
    try {
      text = metrics === undefined ? '' : await metrics.render();
    } catch (error) {
      this.options.log.error({ err: error }, 'could not render metrics for a worker');
      text = '';
    }
    worker.postMessage({ type: 'metrics', id, text, contentType: metrics?.contentType ?? 'text/plain' } satisfies WorkerCommand);
  }

  private async readStatsFor(worker: Worker, id: number): Promise<void> {
    let snapshot: StatsSnapshot | undefined;
    try {
      snapshot = await this.options.stats?.snapshot();
    } catch (error) {
      this.options.log.error({ err: error }, 'could not read the stats snapshot for a worker');
    }
    worker.postMessage({ type: 'stats', id, snapshot } satisfies WorkerCommand);
  }

  /**
   * Each worker stops taking connections and gives what it has in flight up to `deadlineMs`, cuts
   * the rest, settles, then exits. Resolves with the connections cut, all workers together.
   */
  async close(deadlineMs: number): Promise<{ cut: number }> {
    this.closing = true;
    const cuts = await Promise.all(
      [...this.workers.values()].map(
        (worker) =>
          new Promise<number>((resolve) => {
            let cut = 0;
            // A worker that cannot finish its drain (a stuck request) is not waited for past the
            // deadline and the settling time after it.
            const stuck = setTimeout(() => void worker.terminate(), deadlineMs + WORKER_CLOSE_GRACE_MS);
            worker.once('exit', () => {
              clearTimeout(stuck);
              resolve(cut);
            });
            worker.on('message', (event: WorkerEvent) => {
              if (event.type !== 'closed') return;
              cut = event.cut;
              void worker.terminate();
            });
            worker.postMessage({ type: 'close', deadlineMs } satisfies WorkerCommand);
          }),
      ),
    );
    this.workers.clear();
    return { cut: cuts.reduce((a, b) => a + b, 0) };
  }

  private tellReadiness(): void {
    this.options.readiness.set('workers_down', this.listening.size < this.options.config.workers - 1);
  }

  /** One observer that throws (a bug, a full disk) must not stop the others, nor the main thread. */
  private tellObservers(record: RequestRecord, content: RequestContent | undefined): void {
    for (const observer of this.options.observers) {
      try {
        observer.record(record, content);
      } catch (error) {
        this.options.log.error(
          { err: error, observer: observer.constructor.name, requestId: record.requestId },
          "a request observer failed on a worker's record",
        );
      }
    }
  }

  private spawn(n: number): Promise<string> {
    const { governance, log, port } = this.options;
    const { config, routing } = this;
    const channel = governance === undefined ? undefined : new MessageChannel();
    if (channel !== undefined && governance !== undefined) serveGovernance(channel.port1, governance, this.options.keyIssuer);
    const start: WorkerStart = {
      config: { ...config, tls: this.tls },
      worker: n,
      port,
      readiness: this.options.readiness.buffer,
      routing,
      forwardRecords: this.options.observers.length > 0,
      ...(channel !== undefined && { governance: channel.port2 }),
    };
    const [script, evalOption] = workerScript();
    const worker = new Worker(script, { ...evalOption, workerData: start, transferList: channel === undefined ? [] : [channel.port2] });
    this.workers.set(n, worker);
    return new Promise<string>((resolve, reject) => {
      let listening = false;
      worker.on('message', (event: WorkerEvent) => {
        switch (event.type) {
          case 'listening':
            listening = true;
            this.listening.add(n);
            this.tellReadiness();
            resolve(event.url);
            return;
          case 'records':
            for (const { record, content } of event.entries) this.tellObservers(record, content);
            return;
          case 'log':
            this.options.writeLog(event.text);
            return;
          case 'telemetry':
            this.telemetryReplies.answer(event.id, event.telemetry);
            return;
          case 'config-ready':
            this.configReplies.answer(event.id, {
              ...(event.error !== undefined && { error: event.error }),
              ...(event.cpuMs !== undefined && { cpuMs: event.cpuMs }),
            });
            return;
          case 'metrics':
            void this.renderMetricsFor(worker, event.id);
            return;
          case 'stats':
            void this.readStatsFor(worker, event.id);
        }
      });
      worker.once('error', (error) => {
        log.error({ err: error, worker: n }, 'data-plane worker failed');
        if (!listening) reject(error);
      });
      worker.once('exit', (code) => {
        channel?.port1.close();
        this.options.releaseWorker(n);
        this.listening.delete(n);
        this.tellReadiness();
        if (this.workers.get(n) === worker) this.workers.delete(n);
        if (!listening) return reject(new Error(`data-plane worker ${n} exited (code ${code}) before listening`));
        if (this.closing) return;
        log.error({ worker: n, code }, 'data-plane worker exited; starting a new one');
        setTimeout(() => {
          if (!this.closing) this.spawn(n).catch((error: unknown) => log.error({ err: error, worker: n }, 'could not restart a data-plane worker'));
        }, RESPAWN_DELAY_MS).unref();
      });
    });
  }
}
