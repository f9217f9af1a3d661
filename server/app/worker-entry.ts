// The script a data-plane worker thread runs (from source; the single executable runs this file
// bundled on its own: see worker-script.ts). A failure to start rejects, which ends the thread
// with an error the main thread reports.
import { runDataPlaneWorker } from './data-plane-worker.ts';

void runDataPlaneWorker();
