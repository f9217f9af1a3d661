// The script of the configuration loader's thread (config-loader.ts): each message is a Candidate,
// each answer its verdict, or the error that stopped it (as text). The single executable runs this
// file bundled on its own (the SEA asset `config-loader.cjs`, see build/build-binary.ts).
import { parentPort } from 'node:worker_threads';
import { loadCandidate, type Candidate } from './load-candidate.ts';

parentPort?.on('message', ({ id, candidate }: { id: number; candidate: Candidate }) => {
  try {
    parentPort?.postMessage({ id, verdict: loadCandidate(candidate) });
  } catch (error) {
    parentPort?.postMessage({ id, failed: error instanceof Error ? error.message : String(error) });
  }
});
