import type { Worker } from 'node:worker_threads';
import { KeptThread } from '../shared/kept-thread.ts';
import { checkUsageQuery } from './usage-query.ts';
import type { UsageQuery, UsageReport } from './usage-report.ts';

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
 * admissions wait meanwhile, the answer is the same (the thread's life: shared/kept-thread.ts).
 */
export class UsageThread {
  readonly #thread: KeptThread<Answer>;
  #closed = false;
  readonly #dbPath: string;
  readonly #inPlace: (query: UsageQuery) => UsageReport;
  readonly #warn: (message: string) => void;

  /** `inPlace` answers on the calling thread (the store's own connection): the fallback. `warn` is told when the thread dies or cannot be used. */
  constructor(dbPath: string, inPlace: (query: UsageQuery) => UsageReport, warn: (message: string) => void = () => undefined) {
    this.#dbPath = dbPath;
    this.#inPlace = inPlace;
    this.#warn = warn;
    this.#thread = new KeptThread<Answer>({
      name: 'the usage thread',
      asset: 'usage-thread.cjs',
      entry: new URL('./usage-thread-entry.ts', import.meta.url),
      fallback: 'querying usage on the main thread',
      restartAtOnce: false, // most gateways ask for usage seldom: a new thread at the next query
      afterDeath: 'starting another at the next query',
      warn,
    });
    // Another connection cannot see an in-memory database (tests): no thread, nothing to warn about.
    if (dbPath === ':memory:') void this.#thread.close('an in-memory store has no usage thread');
  }

  /** For tests: the thread itself (undefined before the first query), to end it as a crash would. */
  get threadForTests(): Worker | undefined {
    return this.#thread.worker;
  }

  async query(query: UsageQuery): Promise<UsageReport> {
    checkUsageQuery(query); // a bad group is refused here, as in place, without a round trip
    if (!this.#thread.usable) return this.#inPlace(query);
    let answer: Answer;
    try {
      answer = await this.#thread.ask((worker, id) => worker.postMessage({ id, dbPath: this.#dbPath, query }));
    } catch (error) {
      if (this.#closed) throw error;
      // The thread died with this question (already warned), or was given up: answered here instead.
      return this.#inPlace(query);
    }
    if ('report' in answer) return answer.report;
    if (answer.unusable === true) {
      this.#thread.giveUp(`the usage thread cannot open ${this.#dbPath} read-only (${answer.failed})`);
    } else {
      this.#warn(`a usage query failed on the usage thread (${answer.failed}): querying on the main thread instead`);
    }
    return this.#inPlace(query);
  }

  /** Ends the thread (with the store): a query still waiting is rejected. */
  close(): void {
    this.#closed = true;
    void this.#thread.close('the store is closed');
  }
}
