/**
 * Group commit over the network: calls made while a batch is on its way to the database wait and
 * go together in the next one, one statement and one round trip for all of them, the way the
 * SQLite store commits settlements together (settlement-batch.ts). At most `concurrency` batches
 * are in flight, so a busy node sends few, large statements and a quiet one answers at once.
 * A failed batch fails every call in it: it was one transaction, so none of it was written.
 */
export class RoundTripBatch<In, Out> {
  readonly #run: (items: readonly In[]) => Promise<Out[]>;
  readonly #concurrency: number;
  readonly #maxItems: number;
  #waiting: { item: In; resolve(out: Out): void; reject(error: unknown): void }[] = [];
  #inFlight = 0;
  #scheduled = false;

  constructor(run: (items: readonly In[]) => Promise<Out[]>, options: { concurrency?: number; maxItems?: number } = {}) {
    this.#run = run;
    this.#concurrency = options.concurrency ?? 2;
    this.#maxItems = options.maxItems ?? 1000;
  }

  call(item: In): Promise<Out> {
    return new Promise((resolve, reject) => {
      this.#waiting.push({ item, resolve, reject });
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#scheduled || this.#inFlight >= this.#concurrency || this.#waiting.length === 0) return;
    this.#scheduled = true;
    // The rest of this turn's calls join the batch.
    setImmediate(() => {
      this.#scheduled = false;
      this.#send();
    });
  }

  #send(): void {
    if (this.#inFlight >= this.#concurrency || this.#waiting.length === 0) return;
    const batch = this.#waiting.splice(0, this.#maxItems);
    this.#inFlight++;
    this.#run(batch.map((w) => w.item))
      .then(
        (outs) => batch.forEach((w, i) => w.resolve(outs[i]!)),
        (error: unknown) => batch.forEach((w) => w.reject(error)),
      )
      .finally(() => {
        this.#inFlight--;
        this.#schedule();
      });
    this.#schedule();
  }
}
