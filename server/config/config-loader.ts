import { getAsset, isSea } from 'node:sea';
import { Worker } from 'node:worker_threads';
import { LOWEST_PRIORITY_PRELUDE } from './background-priority.ts';
import { loadCandidate, type Candidate, type CandidateVerdict } from './load-candidate.ts';

/**
 * Loads candidate configurations on a thread of its own, so the main thread, which serves requests
 * too, is never blocked by it: parsing, validating and resolving a large configuration (the shipped
 * catalog included) takes tens to hundreds of milliseconds. Started at a reload, kept for the next
 * ones until it has been idle a while (an isolate's memory is not kept for nothing), unreferenced
 * (it never keeps the process alive). Should the thread be unusable, a candidate is loaded here
 * instead: slower for requests meanwhile, never wrong.
 */
const IDLE_MS = 60_000;

export class ConfigLoader {
  private worker: Worker | undefined;
  private broken = false;
  private nextId = 1;
  private idle: NodeJS.Timeout | undefined;
  /** Told once when the thread cannot be used and candidates are loaded in place from then on. */
  private readonly warn: (message: string) => void;

  constructor(warn: (message: string) => void = () => undefined) {
    this.warn = warn;
  }
  private readonly waiting = new Map<number, { resolve: (v: CandidateVerdict) => void; reject: (e: Error) => void }>();

  async load(candidate: Candidate): Promise<CandidateVerdict> {
    const worker = this.thread();
    if (worker === undefined) return loadCandidate(candidate);
    const id = this.nextId++;
    clearTimeout(this.idle);
    try {
      return await new Promise<CandidateVerdict>((resolve, reject) => {
        this.waiting.set(id, { resolve, reject });
        worker.postMessage({ id, candidate });
      });
    } catch (error) {
      if (!this.closing) this.warn(`the configuration loader thread failed (${(error as Error).message}): loading on the main thread instead`);
      return loadCandidate(candidate);
    } finally {
      if (this.waiting.size === 0 && this.worker === worker) this.idle = setTimeout(() => this.retire(worker), IDLE_MS).unref();
    }
  }

  /** An idle thread ends; the next load starts another. */
  private retire(worker: Worker): void {
    if (this.worker !== worker || this.waiting.size > 0) return;
    this.worker = undefined;
    void worker.terminate();
  }

  private closing = false;

  async close(): Promise<void> {
    this.closing = true;
    clearTimeout(this.idle);
    const worker = this.worker;
    this.worker = undefined;
    this.broken = true;
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
      // A thread that dies takes its questions with it: they are answered here instead.
      const fail = (error: Error) => {
        if (this.worker !== worker) return; // retired or closed on purpose
        this.broken = true;
        this.worker = undefined;
        for (const waiter of this.waiting.values()) waiter.reject(error);
        this.waiting.clear();
      };
      worker.once('error', fail);
      worker.once('exit', () => fail(new Error('the configuration loader thread exited')));
      this.worker = worker;
      return worker;
    } catch (error) {
      this.broken = true;
      this.warn(`the configuration loader thread cannot start (${(error as Error).message}): loading on the main thread instead`);
      return undefined;
    }
  }
}
