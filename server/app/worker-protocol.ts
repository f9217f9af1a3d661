import type { MessagePort } from 'node:worker_threads';
import type { RuntimeConfig } from '../config/runtime-config.ts';
import type { RoutingLayout } from '../routing/routing-memory.ts';

/** What the main thread hands a data-plane worker when it starts it (structured-cloned). */
export interface WorkerStart {
  /** The configuration the main thread loaded (with the demo upstream's address filled in). */
  readonly config: RuntimeConfig;
  /** 2 and up (the main thread is 1); recorded as the holder of lane slots and half-open probes. */
  readonly worker: number;
  readonly routing: { readonly buffer: SharedArrayBuffer; readonly layout: RoutingLayout };
  /** The data-plane port the main thread bound (the configured one may be 0, "any"). */
  readonly port: number;
  /** Governance calls go to the main thread through this port; absent when db_path is not set. */
  readonly governance?: MessagePort;
}

/** What one worker reports about itself when asked (plain data, summed by the main thread). */
export interface WorkerTelemetry {
  readonly worker: number;
  /** HTTP requests this worker's data-plane server has received. */
  readonly requests: number;
}

/** Worker → main. */
export type WorkerEvent =
  | { readonly type: 'listening'; readonly url: string }
  | { readonly type: 'telemetry'; readonly id: number; readonly telemetry: WorkerTelemetry }
  | { readonly type: 'closed' };

/** Main → worker. */
export type WorkerCommand = { readonly type: 'close' } | { readonly type: 'telemetry'; readonly id: number };
