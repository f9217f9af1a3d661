import type { RunningGateway } from '../../server/app/start-gateway.ts';

/**
 * A counter of the requests each data-plane worker received since its last call (the first call:
 * since start), so a test can show that every worker served part of a race. `gateway` is read at
 * each call: harnesses are started in beforeAll.
 */
export function servedPerWorker(gateway: () => RunningGateway): () => Promise<number[]> {
  let seen = new Map<number, number>();
  return async () => {
    const now = await gateway().workerTelemetry();
    const delta = now.map((t) => t.requests - (seen.get(t.worker) ?? 0));
    seen = new Map(now.map((t) => [t.worker, t.requests]));
    return delta;
  };
}
