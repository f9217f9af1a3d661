import { getAsset, isSea } from 'node:sea';
import { Worker } from 'node:worker_threads';
import { LOWEST_PRIORITY_PRELUDE } from './background-priority.ts';

/** A thread that dies this often within RESTART_WINDOW_MS is not started again: its owner works in place. */
const MAX_RESTARTS = 3;
const RESTART_WINDOW_MS = 60_000;

export interface KeptThreadOptions {
  /** As the warnings name it: "the configuration loader thread". */
  readonly name: string;
  /** Its script: this asset in the single executable (build/build-binary.ts bundles it), else `entry`. */
  readonly asset: string;
  readonly entry: URL;
  /** What its owner does while there is no thread, for the warnings: "loading on the main thread". */
  readonly fallback: string;
  /** After a death, another thread starts at once (the next question finds one ready), else at the next question. */
  readonly restartAtOnce: boolean;
  /** The words of the warning after one death: "starting another", "starting another at the next query". */
  readonly afterDeath: string;
  readonly warn: (message: string) => void;
  /** Each new thread, before any question is posted to it (the loader's warm-up). */
  readonly onStart?: (worker: Worker) => void;
}

/**
 * A helper thread kept for its owner's life, for work that must not hold up the serving threads
 * (loading a reload's candidate, summing a large spend ledger). It runs at the lowest CPU priority
 * (background-priority.ts), is unreferenced (it never keeps the process alive), answers questions
 * by id, and is started again when it dies, unless it keeps dying: then it is given up, and every
 * question is rejected so that its owner answers in place (slower for the serving threads
 * meanwhile, never wrong). One class for the config loader and the usage thread, which differ only
 * in their messages and in when a dead thread is replaced.
 */
export class KeptThread<Answer extends { readonly id: number }> {
  readonly #options: KeptThreadOptions;
  #worker: Worker | undefined;
  /** Set for good: no thread (closed, unusable, or it kept dying). */
  #broken = false;
  #nextId = 1;
  readonly #deaths: number[] = [];
  readonly #waiting = new Map<number, { resolve: (answer: Answer) => void; reject: (error: Error) => void }>();

  constructor(options: KeptThreadOptions) {
    this.#options = options;
  }

  /** The running thread (diagnostics and tests); undefined before it starts, once given up or closed. */
  get worker(): Worker | undefined {
    return this.#worker;
  }

  /** Whether questions can still go to a thread (one running, or one to start). */
  get usable(): boolean {
    return !this.#broken;
  }

  /** Starts the thread now (else it starts at the first question). */
  start(): void {
    this.#thread();
  }

  /**
   * One question: `send` posts it to the thread with the id given; resolves with the thread's answer
   * of that id. Rejects at once when there is no thread, and later when it dies, is given up or
   * closes with the question unanswered: the owner then answers in place.
   */
  ask(send: (worker: Worker, id: number) => void): Promise<Answer> {
    const worker = this.#thread();
    if (worker === undefined) return Promise.reject(new Error(`${this.#options.name} is not available`));
    const id = this.#nextId++;
    return new Promise<Answer>((resolve, reject) => {
      this.#waiting.set(id, { resolve, reject });
      send(worker, id);
    });
  }

  /** For good (the owner found the thread unusable, or it kept dying): questions waiting are rejected, and a warning says what happens instead. */
  giveUp(reason: string): void {
    this.#broken = true;
    void this.#end(new Error(reason));
    this.#options.warn(`${reason}: ${this.#options.fallback} from now on`);
  }

  /** Ends the thread with its owner: a question still waiting is rejected with `reason`. */
  close(reason: string): Promise<void> {
    this.#broken = true;
    return this.#end(new Error(reason));
  }

  async #end(error: Error): Promise<void> {
    const worker = this.#worker;
    this.#worker = undefined;
    for (const waiter of this.#waiting.values()) waiter.reject(error);
    this.#waiting.clear();
    await worker?.terminate();
  }

  #thread(): Worker | undefined {
    if (this.#broken) return undefined;
    if (this.#worker !== undefined) return this.#worker;
    const { name, asset, entry } = this.#options;
    let worker: Worker;
    try {
      // Lowest priority first, then the thread's own code.
      const script = isSea() ? getAsset(asset, 'utf8') : `import(${JSON.stringify(entry.href)});`;
      worker = new Worker(LOWEST_PRIORITY_PRELUDE + script, { eval: true });
    } catch (error) {
      this.giveUp(`${name} cannot start (${(error as Error).message})`);
      return undefined;
    }
    worker.unref();
    worker.on('message', (answer: Answer) => {
      const waiter = this.#waiting.get(answer.id);
      this.#waiting.delete(answer.id);
      waiter?.resolve(answer); // a failure too: the owner decides what to do with it
    });
    let ended = false;
    const died = (error: Error) => {
      if (ended || this.#worker !== worker) return; // closed on purpose, or already counted
      ended = true;
      this.#worker = undefined;
      for (const waiter of this.#waiting.values()) waiter.reject(error);
      this.#waiting.clear();
      this.#restartAfter(error);
    };
    worker.once('error', died);
    worker.once('exit', (code) => died(new Error(`${name} exited (code ${code})`)));
    this.#worker = worker;
    this.#options.onStart?.(worker);
    return worker;
  }

  /** A dead thread is replaced (at once or at the next question); one that keeps dying is given up. */
  #restartAfter(error: Error): void {
    const now = Date.now();
    this.#deaths.push(now);
    while (this.#deaths.length > 0 && this.#deaths[0]! < now - RESTART_WINDOW_MS) this.#deaths.shift();
    if (this.#deaths.length > MAX_RESTARTS) {
      this.giveUp(`${this.#options.name} failed ${this.#deaths.length} times in a minute (${error.message})`);
      return;
    }
    this.#options.warn(`${this.#options.name} failed (${error.message}): ${this.#options.afterDeath}`);
    if (this.#options.restartAtOnce) this.#thread();
  }
}
