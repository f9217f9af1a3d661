import type { Worker } from 'node:worker_threads';
import { KeptThread } from '../shared/kept-thread.ts';
import { loadCandidate, type Candidate, type CandidateVerdict } from './load-candidate.ts';

/**
 * Loads of the running configuration a new thread makes before any reload. V8 optimizes the
 * parser's hot functions after a few runs, and compiles them on its own helper threads, which run
 * at normal priority whatever the loader's. With the bench's 200-model configuration, those helper
 * threads took 280 ms of CPU over the first five reloads without this, 40 ms with it; the
 * warm-up's own cost falls at start, at the loader's low priority.
 */
const WARM_UP_LOADS = 10;

/**
 * Loads candidate configurations on a thread of its own, so the serving threads are never blocked
 * by it: parsing, validating and resolving a large configuration (the shipped catalog included)
 * takes tens of milliseconds of CPU, and a thread's start most of a second.
 *
 * The thread starts with the gateway (`start`) and is kept for every reload: Node's bootstrap of a
 * new thread runs at normal priority before the thread can lower its own (background-priority.ts),
 * so a thread started at a reload took a core from the serving threads just then. Kept, it costs
 * an idle isolate's memory instead. It is unreferenced (it never keeps the process alive) and
 * started again if it dies (unless it keeps dying). Whenever it cannot answer, a candidate is
 * loaded on the calling thread instead: slower for requests meanwhile, never wrong (the thread's
 * life: shared/kept-thread.ts).
 */
export class ConfigLoader {
  readonly #thread: KeptThread<{ id: number; verdict?: CandidateVerdict; failed?: string }>;
  #warmUp: Candidate | undefined;
  readonly #baseSent = new WeakMap<Worker, Candidate['base']>();

  /** `warn` is told when the thread dies or cannot be used. */
  constructor(warn: (message: string) => void = () => undefined) {
    this.#thread = new KeptThread({
      name: 'the configuration loader thread',
      asset: 'config-loader.cjs',
      entry: new URL('./config-loader-entry.ts', import.meta.url),
      fallback: 'loading on the main thread',
      restartAtOnce: true, // the next reload finds one ready
      afterDeath: 'starting another',
      warn,
      // Queued before any reload's candidate; nobody waits for these answers (id 0). Then the
      // thread gives back what its start and the warm-up left behind (shared/compact-heap.ts).
      onStart: (worker) => {
        if (this.#warmUp !== undefined) for (let i = 0; i < WARM_UP_LOADS; i++) this.#post(worker, 0, this.#warmUp);
        worker.postMessage({ compact: true });
      },
    });
  }

  /**
   * Starts the thread now (the gateway's start), so no reload waits for, or competes with, its
   * bootstrap, and has it load `warmUp` (the running configuration) a few times, answers unused.
   */
  start(warmUp?: Candidate): void {
    this.#warmUp = warmUp;
    this.#thread.start();
  }

  /** The thread's id (diagnostics and tests); undefined before `start`, after `close`, or when loading in place. */
  get threadId(): number | undefined {
    return this.#thread.worker?.threadId;
  }

  /** For tests: the thread itself, to end it as a crash would. */
  get threadForTests(): Worker | undefined {
    return this.#thread.worker;
  }

  async load(candidate: Candidate): Promise<CandidateVerdict> {
    let answer: { verdict?: CandidateVerdict; failed?: string };
    try {
      answer = await this.#thread.ask((worker, id) => this.#post(worker, id, candidate));
    } catch {
      // No thread, it died with this question (already warned), or the loader is closing.
      return loadCandidate(candidate);
    }
    if (answer.verdict !== undefined) return answer.verdict;
    return loadCandidate(candidate); // the thread could not load it: the same load here says why
  }

  /** The thread keeps the base configuration it was sent last: it is sent again only when it is another. */
  #post(worker: Worker, id: number, candidate: Candidate): void {
    if (this.#baseSent.get(worker) === candidate.base) {
      const { base: _kept, ...rest } = candidate;
      worker.postMessage({ id, candidate: rest });
    } else {
      this.#baseSent.set(worker, candidate.base);
      worker.postMessage({ id, candidate });
    }
  }

  close(): Promise<void> {
    return this.#thread.close('the configuration loader is closing');
  }
}
