/** A first-in first-out queue of at most `capacity` items; `push` refuses beyond it. O(1) both ends. */
export class BoundedQueue<T> {
  private items: (T | undefined)[] = [];
  private head = 0;
  readonly capacity: number;

  constructor(capacity: number) {
    this.capacity = capacity;
  }

  get length(): number {
    return this.items.length - this.head;
  }

  push(item: T): boolean {
    if (this.length >= this.capacity) return false;
    this.items.push(item);
    return true;
  }

  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head];
    this.items[this.head++] = undefined;
    // Taken slots are dropped once they are half the array: amortised O(1), memory bounded.
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }

  /** Empties the queue and says how many items it held. */
  clear(): number {
    const n = this.length;
    this.items = [];
    this.head = 0;
    return n;
  }
}
