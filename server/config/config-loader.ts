import { getAsset, isSea } from 'node:sea';
import { Worker } from 'node:worker_threads';
import { LOWEST_PRIORITY_PRELUDE } from './background-priority.ts';
import { loadCandidate, type Candidate, type CandidateVerdict } from './load-candidate.ts';

/**
 * Loads of the running configuration a new thread makes before any reload. V8 optimizes the
 * parser's hot functions after a few runs, and compiles them on its own helper threads, which run
 * at normal priority whatever the loader's. With the bench's 200-model configuration, those helper
 * threads took 280 ms of CPU over the first five reloads without this, 40 ms with it; the
 * warm-up's own cost falls at start, at the loader's low priority.
 */
const WARM_UP_LOADS = 10;

/** A thread that dies this often within RESTART_WINDOW_MS is not started again: candidates are loaded in place. */
const MAX_RESTARTS = 3;
const RESTART_WINDOW_MS = 60_000;

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
 * loaded on the calling thread instead: slower for requests meanwhile, never wrong.
 */
export class ConfigLoader {
  private worker: Worker | undefined;
  /** Set for good: no thread (close, or it kept dying); candidates are loaded in place. */
  private broken = false;
  private nextId = 1;
  private readonly deaths: number[] = [];
  private warmUp: Candidate | undefined;
  private readonly baseSent = new WeakMap<Worker, Candidate['base']>();
  private readonly waiting = new Map<number, { resolve: (v: CandidateVerdict) => void; reject: (e: Error) => void }>();
  /** Told when the thread dies or cannot be used. */
  private readonly warn: (message: string) => void;

  constructor(warn: (message: string) => void = () => undefined) {
    this.warn = warn;
  }

  /**
   * Starts the thread now (the gateway's start), so no reload waits for, or competes with, its
   * bootstrap, and has it load `warmUp` (the running configuration) a few times, answers unused.
   */
  start(warmUp?: Candidate): void {
    this.warmUp = warmUp;
    this.thread();
  }

  /** The thread's id (diagnostics and tests); undefined before `start`, after `close`, or when loading in place. */
  get threadId(): number | undefined {
    return this.worker?.threadId;
  }

  /** For tests: the thread itself, to end it as a crash would. */
  get threadForTests(): Worker | undefined {
    return this.worker;
  }

  async load(candidate: Candidate): Promise<CandidateVerdict> {
    const worker = this.thread();
    if (worker === undefined) return loadCandidate(candidate);
    const id = this.nextId++;
    try {
      return await new Promise<CandidateVerdict>((resolve, reject) => {
        this.waiting.set(id, { resolve, reject });
        this.post(worker, id, candidate);
      });
    } catch {
      // The thread died with this question (already warned), or the loader is closing.
      return loadCandidate(candidate);
    }
  }

  /** The thread keeps the base configuration it was sent last: it is sent again only when it is another. */
  private post(worker: Worker, id: number, candidate: Candidate): void {
    if (this.baseSent.get(worker) === candidate.base) {
      const { base: _kept, ...rest } = candidate;
      worker.postMessage({ id, candidate: rest });
    } else {
      this.baseSent.set(worker, candidate.base);
      worker.postMessage({ id, candidate });
    }
  }

  async close(): Promise<void> {
    this.broken = true;
    const worker = this.worker;
    this.worker = undefined;
    for (const waiter of this.waiting.values()) waiter.reject(new Error('the configuration loader is closing'));
    this.waiting.clear();
    await worker?.terminate();
  }

  private thread(): Worker | undefined {
    if (this.broken) return undefined;
    if (this.worker !== undefined) return this.worker;
    try {
      // Lowest priority first, then the loader's own code (bundled in the single executable).
      const script = isSea() ? getAsset('config-loader.cjs', 'utf8') : `import(${JSON.stringify(new URL('./config-loader-entry.ts', import.meta.url).href)});`;
      const worker = new Worker(LOWEST_PRIORITY_PRELUDE + script, { eval: true });
      worker.unref();
      worker.on('message', (answer: { id: number; verdict?: CandidateVerdict; failed?: string }) => {
        const waiter = this.waiting.get(answer.id);
        this.waiting.delete(answer.id);
        if (answer.verdict !== undefined) waiter?.resolve(answer.verdict);
        else waiter?.reject(new Error(answer.failed));
      });
      let ended = false;
      const died = (error: Error) => {
        if (ended || this.worker !== worker) return; // closed on purpose, or already counted
        ended = true;
        this.worker = undefined;
        for (const waiter of this.waiting.values()) waiter.reject(error);
        this.waiting.clear();
        this.restartAfter(error);
      };
      worker.once('error', died);
      worker.once('exit', (code) => died(new Error(`the configuration loader thread exited (code ${code})`)));
      this.worker = worker;
      // Queued before any reload's candidate; nobody waits for these answers.
      if (this.warmUp !== undefined) for (let i = 0; i < WARM_UP_LOADS; i++) this.post(worker, 0, this.warmUp);
      return worker;
    } catch (error) {
      this.broken = true;
      this.warn(`the configuration loader thread cannot start (${(error as Error).message}): loading on the main thread instead`);
      return undefined;
    }
  }

  /** A dead thread is replaced at once, so the next reload finds one ready; one that keeps dying is given up. */
  private restartAfter(error: Error): void {
    const now = Date.now();
    this.deaths.push(now);
    while (this.deaths.length > 0 && this.deaths[0]! < now - RESTART_WINDOW_MS) this.deaths.shift();
    if (this.deaths.length > MAX_RESTARTS) {
      this.broken = true;
      this.warn(`the configuration loader thread failed ${this.deaths.length} times in a minute (${error.message}): loading on the main thread from now on`);
      return;
    }
    this.warn(`the configuration loader thread failed (${error.message}): starting another`);
    this.thread();
  }
}
