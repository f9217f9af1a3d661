import type { Server } from 'node:http';
import type { GateHook } from '../hooks/gate-hook.ts';
import type { RequestStats } from '../observability/request-stats.ts';
import { RequestsInFlight } from '../observability/requests-in-flight.ts';
import { TranslationStats } from '../observability/translation-stats.ts';
import type { WorkerTelemetry } from './worker-protocol.ts';

/**
 * What one data-plane thread counts itself while it serves (the main thread as worker 1, or a
 * worker thread): requests received, chat requests in flight, translations, its gate hooks'
 * counters, its finished requests' totals. Reported as plain data when the main thread asks (FleetView sums the reports).
 */
export class ServingState {
  readonly inFlight = new RequestsInFlight();
  readonly translations = new TranslationStats();
  private readonly worker: number;
  private readonly gates: readonly GateHook[];
  /** The thread's finished requests (its RequestStats observer). */
  private readonly finished: RequestStats;
  private requests = 0;

  constructor(worker: number, gates: readonly GateHook[], finished: RequestStats) {
    this.worker = worker;
    this.gates = gates;
    this.finished = finished;
  }

  /** Counts every HTTP request the thread's data-plane server receives. */
  countRequestsOf(server: Server): void {
    server.on('request', () => this.requests++);
  }

  telemetry(): WorkerTelemetry {
    return {
      worker: this.worker,
      requests: this.requests,
      inFlight: this.inFlight.current,
      translations: this.translations.snapshot(),
      gates: Object.fromEntries(this.gates.map((g) => [g.settings.name, { ...g.counters }])),
      requestStats: this.finished.report(),
    };
  }
}
