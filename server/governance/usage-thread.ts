import { getAsset, isSea } from 'node:sea';
import { Worker } from 'node:worker_threads';
import { LOWEST_PRIORITY_PRELUDE } from '../config/background-priority.ts';
import { checkUsageQuery } from './usage-query.ts';
import type { UsageQuery, UsageReport } from './usage-report.ts';

/** A thread that dies this often within RESTART_WINDOW_MS is not started again: usage is queried in place. */
const MAX_RESTARTS = 3;
const RESTART_WINDOW_MS = 60_000;

type Answer = { id: number; report: UsageReport } | { id: number; failed: string; unusable?: boolean };

/**
 * Runs the embedded store's usage queries (usage-query.ts) on a thread of its own, on a read-only
 * connection to the same file. The owner thread makes every admission decision for every worker
 * thread; a GROUP BY over a large ledger on it (1.5 s for a million rows by key and model) stalled
 * them all that long. The store is WAL with normal locking, so the read-only connection reads
 * every settlement committed before the query, and neither blocks the other.
 *
 * The thread starts on the first query, not with the gateway: most gateways never ask for usage,
 * and a kept idle thread costs an isolate's memory in each of them; the first query pays the
 * thread's start (tens of milliseconds of a core) once. It is then kept for the next queries,
 * runs at the lowest CPU priority (background-priority.ts), is unreferenced (it never keeps the
 * process alive), ends with the store (`close`), and is started again if it dies (unless it keeps
 * dying). Whenever it cannot answer, the query runs on the calling thread instead, with a warning:
 * admissions wait meanwhile, the answer is the same.
 */
export class UsageThread {
  private worker: Worker | undefined;
  /** Set for good: no thread (an in-memory store, close, or it kept dying); usage is queried in place. */
  private broken: boolean;
  private closed = false;
  private nextId = 1;
  private readonly deaths: number[] = [];
  /** Each query's answer (a report or a failure), or its rejection when the thread dies or closes. */
  private readonly waiting = new Map<number, { resolve: (answer: Answer) => void; reject: (error: Error) => void }>();
  private readonly dbPath: string;
  private readonly inPlace: (query: UsageQuery) => UsageReport;
  /** Told when the thread dies or cannot be used. */
  private readonly warn: (message: string) => void;

  /** `inPlace` answers on the calling thread (the store's own connection): the fallback. */
  constructor(dbPath: string, inPlace: (query: UsageQuery) => UsageReport, warn: (message: string) => void = () => undefined) {
    this.dbPath = dbPath;
    this.inPlace = inPlace;
    this.warn = warn;
    // Another connection cannot see an in-memory database (tests): nothing to warn about.
    this.broken = dbPath === ':memory:';
  }

  /** For tests: the thread itself (undefined before the first query), to end it as a crash would. */
  get threadForTests(): Worker | undefined {
    return this.worker;
  }

  async query(query: UsageQuery): Promise<UsageReport> {
    checkUsageQuery(query); // a bad group is refused here, as in place, without a round trip
    const worker = this.thread();
    if (worker === undefined) return this.inPlace(query);
    const id = this.nextId++;
    let answer: Answer;
    try {
      answer = await new Promise<Answer>((resolve, reject) => {
        this.waiting.set(id, { resolve, reject });
        worker.postMessage({ id, dbPath: this.dbPath, query });
      });
    } catch (error) {
      if (this.closed) throw error;
      // The thread died with this question (already warned): answered here instead.
      return this.inPlace(query);
    }
    if ('report' in answer) return answer.report;
    if (answer.unusable === true) {
      this.giveUp(`the usage thread cannot open ${this.dbPath} read-only (${answer.failed})`);
    } else {
      this.warn(`a usage query failed on the usage thread (${answer.failed}): querying on the main thread instead`);
    }
    return this.inPlace(query);
  }

  /** Ends the thread (with the store): a query still waiting is rejected. */
  close(): void {
    this.closed = true;
    this.broken = true;
    const worker = this.worker;
    this.worker = undefined;
    for (const waiter of this.waiting.values()) waiter.reject(new Error('the store is closed'));
    this.waiting.clear();
    void worker?.terminate();
  }

  private thread(): Worker | undefined {
    if (this.broken) return undefined;
    if (this.worker !== undefined) return this.worker;
    try {
      // Lowest priority first, then the thread's own code (bundled in the single executable).
      const script = isSea() ? getAsset('usage-thread.cjs', 'utf8') : `import(${JSON.stringify(new URL('./usage-thread-entry.ts', import.meta.url).href)});`;
      const worker = new Worker(LOWEST_PRIORITY_PRELUDE + script, { eval: true });
      worker.unref();
      worker.on('message', (answer: Answer) => {
        const waiter = this.waiting.get(answer.id);
        this.waiting.delete(answer.id);
        waiter?.resolve(answer); // a failure too: the query decides what to do with it
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
      worker.once('exit', (code) => died(new Error(`the usage thread exited (code ${code})`)));
      this.worker = worker;
      return worker;
    } catch (error) {
      this.giveUp(`the usage thread cannot start (${(error as Error).message})`);
      return undefined;
    }
  }

  private giveUp(reason: string): void {
    this.broken = true;
    const worker = this.worker;
    this.worker = undefined;
    // Queries still waiting on it are answered in place too (see query).
    for (const waiter of this.waiting.values()) waiter.reject(new Error(reason));
    this.waiting.clear();
    void worker?.terminate();
    this.warn(`${reason}: querying usage on the main thread from now on`);
  }

  /** A dead thread is replaced at the next query; one that keeps dying is given up. */
  private restartAfter(error: Error): void {
    const now = Date.now();
    this.deaths.push(now);
    while (this.deaths.length > 0 && this.deaths[0]! < now - RESTART_WINDOW_MS) this.deaths.shift();
    if (this.deaths.length > MAX_RESTARTS) {
      this.giveUp(`the usage thread failed ${this.deaths.length} times in a minute (${error.message})`);
      return;
    }
    this.warn(`the usage thread failed (${error.message}): starting another at the next query`);
  }
}
