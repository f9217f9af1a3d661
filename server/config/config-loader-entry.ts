// The script of the configuration loader's thread (config-loader.ts): each message is a Candidate,
// each answer its verdict, or the error that stopped it (as text); or, once after the start's
// warm-up, `compact`, unanswered. The single executable runs this
// file bundled on its own (the SEA asset `config-loader.cjs`, see build/build-binary.ts).
import { parentPort } from 'node:worker_threads';
import { compactHeap } from '../shared/compact-heap.ts';
import { loadCandidate, type Candidate } from './load-candidate.ts';

// The running gateway's start configuration (Candidate.base) comes once, with the first candidate,
// and is kept: it never changes, and cloning it with every candidate cost the main thread.
let base: Candidate['base'] | undefined;

type Message = { compact: true } | { id: number; candidate: Omit<Candidate, 'base'> & { base?: Candidate['base'] } };

parentPort?.on('message', (message: Message) => {
  // After the start's warm-up loads: no answer is awaited.
  if ('compact' in message) return compactHeap('helper');
  const { id, candidate } = message;
  try {
    base = candidate.base ?? base;
    if (base === undefined) throw new Error('no base configuration was sent');
    parentPort?.postMessage({ id, verdict: loadCandidate({ ...candidate, base }) });
  } catch (error) {
    parentPort?.postMessage({ id, failed: error instanceof Error ? error.message : String(error) });
  }
});
