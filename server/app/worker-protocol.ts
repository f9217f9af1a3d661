import type { MessagePort } from 'node:worker_threads';
import type { RuntimeConfig, TlsMaterial } from '../config/runtime-config.ts';
import type { GateCounters } from '../hooks/hook-counters.ts';
import type { RequestContent } from '../observability/request-content.ts';
import type { RequestRecord } from '../observability/request-record.ts';
import type { RequestStatsReport } from '../observability/request-stats.ts';
import type { MetricsJson } from '../observability/metrics.ts';
import type { StatsSnapshot } from '../observability/stats-snapshot.ts';
import type { TranslationSnapshot } from '../observability/translation-stats.ts';
import type { BlocksDelta, RoutingBlocks } from '../routing/routing-memory.ts';

/** What the main thread hands a data-plane worker when it starts it (structured-cloned). */
export interface WorkerStart {
  /** The configuration the main thread loaded (with the demo upstream's address filled in). */
  readonly config: RuntimeConfig;
  /** 2 and up (the main thread is 1); recorded as the holder of lane slots and half-open probes. */
  readonly worker: number;
  /** The routing state's shared blocks for this configuration (routing-memory.ts). */
  readonly routing: RoutingBlocks;
  /** The data-plane port the main thread bound (the configured one may be 0, "any"). */
  readonly port: number;
  /** The main thread's readiness word (app/readiness.ts), read by GET /readyz. */
  readonly readiness: SharedArrayBuffer;
  /** Governance calls go to the main thread through this port; absent when db_path is not set. */
  readonly governance?: MessagePort;
  /**
   * Whether finished requests' records must be posted to the main thread: only for the observers
   * that must be one per gateway (OTLP spans, webhooks, an embedder's). The log line, metrics and
   * /stats's totals are kept by each worker for its own requests and read when asked.
   */
  readonly forwardRecords: boolean;
}

/**
 * What one worker reports about the state it keeps itself (plain data, summed by the main
 * thread). Finished requests are not in it: their records go to the main thread as they happen.
 */
export interface WorkerTelemetry {
  readonly worker: number;
  /** HTTP requests this worker's data-plane server has received. */
  readonly requests: number;
  /** Chat requests it is handling now. */
  readonly inFlight: number;
  readonly translations: TranslationSnapshot;
  /** Gate hook counters by hook name (each worker calls the gates itself). */
  readonly gates: Readonly<Record<string, GateCounters>>;
  /** Its finished requests' totals and recent latencies (GET /stats adds them up). */
  readonly requestStats: RequestStatsReport;
  /** Its request metrics (prom-client JSON), when the telemetry question asked for them (a scrape). */
  readonly metrics?: MetricsJson;
}

/** Worker → main. */
export type WorkerEvent =
  | { readonly type: 'listening'; readonly url: string }
  | { readonly type: 'telemetry'; readonly id: number; readonly telemetry: WorkerTelemetry }
  /** Finished requests, batched, for the observers that run in the main thread only (OTLP, webhooks). */
  | { readonly type: 'records'; readonly entries: readonly { readonly record: RequestRecord; readonly content?: RequestContent }[] }
  /** Its log lines of one turn of its event loop (request lines included), for the main thread to write. */
  | { readonly type: 'log'; readonly text: string }
  /** A scrape of GET /metrics reached this worker: the main thread renders the one registry. */
  | { readonly type: 'metrics'; readonly id: number }
  /** A GET /stats reached this worker: the main thread reads the snapshot (the totals are counted there). */
  | { readonly type: 'stats'; readonly id: number }
  /** Its drain ended; `cut`: connections still open at the deadline, cut. */
  | { readonly type: 'closed'; readonly cut: number }
  /** A `config` was prepared (ready to switch on `config-commit`), or could not be (`error`); `cpuMs`: what preparing took this thread. */
  | { readonly type: 'config-ready'; readonly id: number; readonly error?: string; readonly cpuMs?: number };

/** Main → worker. */
export type WorkerCommand =
  /** Drain: requests in flight get up to `deadlineMs`, then their connections are cut. */
  | { readonly type: 'close'; readonly deadlineMs: number }
  /** `metrics`: include the worker's request metrics (a scrape of GET /metrics or an OTLP export). */
  | { readonly type: 'telemetry'; readonly id: number; readonly metrics?: boolean }
  /** SIGHUP: new connections get this certificate, key and client CA (already checked by the main thread). */
  | { readonly type: 'tls'; readonly tls: TlsMaterial }
  | { readonly type: 'metrics'; readonly id: number; readonly text: string; readonly contentType: string }
  /** The snapshot a `stats` event asked for; undefined: it could not be read. */
  | { readonly type: 'stats'; readonly id: number; readonly snapshot: StatsSnapshot | undefined }
  /**
   * A configuration change, in two steps so that every thread switches together: `config` builds
   * the next gateway (routing table over these blocks) and answers `config-ready`; `config-commit`
   * makes it the one new requests get; `config-abort` drops it (another thread could not prepare).
   * `routing` carries only the blocks the worker does not hold in its current routing table.
   */
  | { readonly type: 'config'; readonly id: number; readonly config: RuntimeConfig; readonly routing: BlocksDelta }
  | { readonly type: 'config-commit'; readonly id: number }
  | { readonly type: 'config-abort'; readonly id: number };
