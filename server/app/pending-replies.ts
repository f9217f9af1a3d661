/**
 * Questions sent to another thread by message and answered by a message carrying the same id: the
 * asker keeps one of these, sends `{ id, ... }`, and hands each answer to `answer(id, value)`. A
 * question unanswered within `timeoutMs` resolves to `fallback` (a thread may be gone).
 */
export class PendingReplies<T> {
  private readonly waiting = new Map<number, (value: T) => void>();
  private nextId = 1;

  ask(send: (id: number) => void, timeoutMs: number, fallback: T): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve) => {
      const timer = setTimeout(() => this.answer(id, fallback), timeoutMs);
      this.waiting.set(id, (value) => {
        clearTimeout(timer);
        resolve(value);
      });
      send(id);
    });
  }

  /** An answer that arrives after its question timed out is ignored. */
  answer(id: number, value: T): void {
    const resolve = this.waiting.get(id);
    if (resolve === undefined) return;
    this.waiting.delete(id);
    resolve(value);
  }
}
