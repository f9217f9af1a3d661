// The script a data-plane worker thread runs when the gateway runs from source (the single
// executable runs its own bundle instead: see worker-pool.ts).
import { runDataPlaneWorker } from './data-plane-worker.ts';

await runDataPlaneWorker();
