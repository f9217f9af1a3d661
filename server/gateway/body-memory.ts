import type { RuntimeConfig } from '../config/runtime-config.ts';

/**
 * The memory all request bodies in flight may hold together in one serving thread
 * (`limits.max_request_bytes_in_flight`). A body is held from before its first byte is read (its
 * declared length, or chunk by chunk when it declares none) until its request ends, since the
 * pipeline keeps it for every attempt. A body that does not fit is refused (503, Retry-After)
 * without being read, so slow or huge uploads cannot take the thread's memory.
 */
export class BodyMemory {
  private held = 0;
  /** Changed only by a configuration change (carryBodyMemory). */
  private limit: number;

  constructor(limit: number) {
    this.limit = limit;
  }

  /** Bytes held now. */
  get current(): number {
    return this.held;
  }

  /** A hold for one request's body: grown as it is read, released once when the request ends. */
  hold(): BodyHold {
    return new BodyHold(this);
  }

  /** @internal for BodyHold: whether `bytes` more fit (and, if so, they are held). */
  take(bytes: number): boolean {
    if (this.held + bytes > this.limit) return false;
    this.held += bytes;
    return true;
  }

  /** @internal for carryBodyMemory */
  setLimit(limit: number): void {
    this.limit = limit;
  }

  /** @internal for BodyHold */
  give(bytes: number): void {
    this.held -= bytes;
  }
}

export class BodyHold {
  private bytes = 0;
  private readonly memory: BodyMemory;

  constructor(memory: BodyMemory) {
    this.memory = memory;
  }

  /** Holds up to `total` bytes for this body (no-op below what is held); false: they do not fit. */
  growTo(total: number): boolean {
    if (total <= this.bytes) return true;
    if (!this.memory.take(total - this.bytes)) return false;
    this.bytes = total;
    return true;
  }

  release(): void {
    this.memory.give(this.bytes);
    this.bytes = 0;
  }
}

/** One BodyMemory per gateway configuration in this thread (each serving thread has its own). */
const perConfig = new WeakMap<RuntimeConfig, BodyMemory>();

export function bodyMemoryOf(config: RuntimeConfig): BodyMemory {
  let memory = perConfig.get(config);
  if (memory === undefined) {
    memory = new BodyMemory(config.limits.maxRequestBytesInFlight);
    perConfig.set(config, memory);
  }
  return memory;
}

/**
 * A configuration change: the next configuration's requests share the thread's memory with the
 * bodies still held by the previous one's (a fresh count would let both hold the whole limit).
 */
export function carryBodyMemory(previous: RuntimeConfig, next: RuntimeConfig): void {
  const memory = bodyMemoryOf(previous);
  memory.setLimit(next.limits.maxRequestBytesInFlight);
  perConfig.set(next, memory);
}
