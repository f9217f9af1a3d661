import { getAsset, isSea } from 'node:sea';
import { Worker } from 'node:worker_threads';
import { loadCandidate, type Candidate, type CandidateVerdict } from './load-candidate.ts';

/**
 * Loads candidate configurations on a thread of its own, so the main thread, which serves requests
 * too, is never blocked by it: parsing, validating and resolving a large configuration (the shipped
 * catalog included) takes tens to hundreds of milliseconds. Started at the first reload, kept for
 * the next ones, unreferenced (it never keeps the process alive). Should the thread be unusable, a
 * candidate is loaded here instead: slower for requests meanwhile, never wrong.
 */
export class ConfigLoader {
  private worker: Worker | undefined;
  private broken = false;
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (v: CandidateVerdict) => void; reject: (e: Error) => void }>();

  async load(candidate: Candidate): Promise<CandidateVerdict> {
    const worker = this.thread();
    if (worker === undefined) return loadCandidate(candidate);
    const id = this.nextId++;
    try {
      return await new Promise<CandidateVerdict>((resolve, reject) => {
        this.waiting.set(id, { resolve, reject });
        worker.postMessage({ id, candidate });
      });
    } catch {
      return loadCandidate(candidate);
    }
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    this.broken = true;
    await worker?.terminate();
  }

  private thread(): Worker | undefined {
    if (this.broken) return undefined;
    if (this.worker !== undefined) return this.worker;
    try {
      const worker = isSea()
        ? new Worker(getAsset('config-loader.cjs', 'utf8'), { eval: true })
        : new Worker(new URL('./config-loader-entry.ts', import.meta.url));
      worker.unref();
      worker.on('message', (answer: { id: number; verdict?: CandidateVerdict; failed?: string }) => {
        const waiter = this.waiting.get(answer.id);
        this.waiting.delete(answer.id);
        if (answer.verdict !== undefined) waiter?.resolve(answer.verdict);
        else waiter?.reject(new Error(answer.failed));
      });
      // A thread that dies takes its questions with it: they are answered here instead.
      const fail = (error: Error) => {
        this.broken = true;
        this.worker = undefined;
        for (const waiter of this.waiting.values()) waiter.reject(error);
        this.waiting.clear();
      };
      worker.once('error', fail);
      worker.once('exit', () => fail(new Error('the configuration loader thread exited')));
      this.worker = worker;
      return worker;
    } catch {
      this.broken = true;
      return undefined;
    }
  }
}
