/**
 * The routing state's memory, shared by every data-plane worker thread, so a breaker trip, a
 * half-open probe or a lane's in-flight count is one fact across threads.
 *
 * The state is kept in small SharedArrayBuffers ("blocks") keyed by identity, not in one buffer
 * laid out by the configuration: a configuration change hands every thread the blocks of the new
 * configuration, and whatever did not change (a lane, a pool's member) keeps its very block. So its
 * state carries over exactly, even for requests still in flight on the old configuration, which
 * keep writing into the same block. Zeroed memory means "fresh": closed breakers, empty windows,
 * nothing in flight.
 *   lane block  Int32 [total in flight, held by worker 1, .., held by worker N]  (max_concurrent)
 *   cell block  Int32 lock, padding, Float64 fields[cellFloats]                  (breaker-cell.ts)
 *   pool block  Int32 [failovers]
 */
export interface RoutingBlocks {
  /** Worker threads the lane blocks count for (fixed for the life of the process). */
  readonly workers: number;
  readonly cellFloats: number;
  readonly lanes: ReadonlyMap<string, SharedArrayBuffer>;
  readonly cells: ReadonlyMap<string, SharedArrayBuffer>;
  readonly pools: ReadonlyMap<string, SharedArrayBuffer>;
}

/** The identities one configuration needs blocks for (RoutingTable.needs). */
export interface RoutingNeeds {
  readonly lanes: readonly string[];
  readonly cells: readonly string[];
  readonly pools: readonly string[];
}

/** One breaker cell's fields and its lock. */
export interface CellSlot {
  readonly fields: Float64Array;
  readonly locks: Int32Array;
  readonly lockIndex: number;
}

/** Bytes before a cell's fields: its lock, padded to Float64 alignment. */
const CELL_HEADER = 8;

/**
 * The owner of the blocks (the main thread): hands out the blocks a configuration needs, the ones
 * it already had kept, and forgets the ones no longer needed, except a lane's counter while some
 * request still holds a slot of it (a lane removed and added back before it drained finds it).
 */
export class RoutingMemory {
  readonly workers: number;
  readonly cellFloats: number;
  private lanes = new Map<string, SharedArrayBuffer>();
  private cells = new Map<string, SharedArrayBuffer>();
  private pools = new Map<string, SharedArrayBuffer>();
  /** Removed lanes' counters, until nothing is in flight on them. */
  private readonly retired = new Map<string, SharedArrayBuffer>();

  constructor(workers: number, cellFloats: number) {
    this.workers = workers;
    this.cellFloats = cellFloats;
  }

  /**
   * The blocks `needs` names: the ones already handed out kept, new ones zeroed. Nothing changes
   * here until `adopt` (a change that is refused after this leaves the memory as it was).
   */
  share(needs: RoutingNeeds): RoutingBlocks {
    const lanes = pick(this.lanes, needs.lanes, 4 * (1 + this.workers), (key) => this.retired.get(key));
    return {
      workers: this.workers,
      cellFloats: this.cellFloats,
      lanes,
      cells: pick(this.cells, needs.cells, CELL_HEADER + 8 * this.cellFloats),
      pools: pick(this.pools, needs.pools, 4),
    };
  }

  /** `blocks` (from share) are now the ones in use; lanes left out that still have requests in flight are kept aside. */
  adopt(blocks: RoutingBlocks): void {
    for (const [key, block] of this.lanes) if (!blocks.lanes.has(key)) this.retired.set(key, block);
    for (const key of blocks.lanes.keys()) this.retired.delete(key);
    for (const [key, block] of this.retired) if (Atomics.load(new Int32Array(block), 0) === 0) this.retired.delete(key);
    this.lanes = new Map(blocks.lanes);
    this.cells = new Map(blocks.cells);
    this.pools = new Map(blocks.pools);
  }

  /** A worker thread ended: the lane slots it held, in current and removed lanes alike, are given back. */
  releaseWorker(worker: number): void {
    for (const block of [...this.lanes.values(), ...this.retired.values()]) releaseLaneSlots(block, worker);
  }
}

function pick(
  had: ReadonlyMap<string, SharedArrayBuffer>,
  keys: readonly string[],
  bytes: number,
  revive?: (key: string) => SharedArrayBuffer | undefined,
): Map<string, SharedArrayBuffer> {
  const out = new Map<string, SharedArrayBuffer>();
  for (const key of keys) out.set(key, had.get(key) ?? revive?.(key) ?? new SharedArrayBuffer(bytes));
  return out;
}

/** Blocks for one thread alone (tests, tools, a table built without a shared memory). */
export function privateBlocks(needs: RoutingNeeds, cellFloats: number): RoutingBlocks {
  const memory = new RoutingMemory(1, cellFloats);
  const blocks = memory.share(needs);
  memory.adopt(blocks);
  return blocks;
}

/** A lane block's counters as a LaneLimiter takes them, for this thread's worker number. */
export function laneCounters(block: SharedArrayBuffer, worker: number): { total: Int32Array; index: number; mine: Int32Array; mineIndex: number } {
  const ints = new Int32Array(block);
  return { total: ints, index: 0, mine: ints, mineIndex: worker };
}

export function releaseLaneSlots(block: SharedArrayBuffer, worker: number): void {
  const ints = new Int32Array(block);
  const held = Atomics.exchange(ints, worker, 0);
  if (held > 0) Atomics.sub(ints, 0, held);
}

export function cellSlot(block: SharedArrayBuffer, cellFloats: number): CellSlot {
  return { fields: new Float64Array(block, CELL_HEADER, cellFloats), locks: new Int32Array(block, 0, 1), lockIndex: 0 };
}

/**
 * Takes a cell's lock. Critical sections are a few arithmetic steps with no await, so a spin is
 * cheaper than parking the thread, and it also works on the main thread, where Atomics.wait is not
 * allowed. Always paired with unlockCell in a finally.
 */
export function lockCell(slot: CellSlot): void {
  while (Atomics.compareExchange(slot.locks, slot.lockIndex, 0, 1) !== 0) {
    // another thread is inside for well under a microsecond
  }
}

export function unlockCell(slot: CellSlot): void {
  Atomics.store(slot.locks, slot.lockIndex, 0);
}

/**
 * RoutingBlocks as sent to a thread that already holds `held`: every key, in order, and only the
 * blocks it does not hold yet. A change usually keeps every lane, cell and pool, and each
 * SharedArrayBuffer in a message costs the sender and the receiver (a 200-model configuration has
 * about 850 blocks); the receiver rebuilds the whole set with `receiveBlocks`.
 */
export interface BlocksDelta {
  readonly workers: number;
  readonly cellFloats: number;
  readonly lanes: KeysAndNew;
  readonly cells: KeysAndNew;
  readonly pools: KeysAndNew;
}

interface KeysAndNew {
  readonly keys: readonly string[];
  readonly added: ReadonlyMap<string, SharedArrayBuffer>;
}

export function blocksDelta(next: RoutingBlocks, held: RoutingBlocks): BlocksDelta {
  const part = (nextMap: ReadonlyMap<string, SharedArrayBuffer>, heldMap: ReadonlyMap<string, SharedArrayBuffer>): KeysAndNew => {
    const added = new Map<string, SharedArrayBuffer>();
    for (const [key, block] of nextMap) if (heldMap.get(key) !== block) added.set(key, block);
    return { keys: [...nextMap.keys()], added };
  };
  return {
    workers: next.workers,
    cellFloats: next.cellFloats,
    lanes: part(next.lanes, held.lanes),
    cells: part(next.cells, held.cells),
    pools: part(next.pools, held.pools),
  };
}

/** The blocks a delta names, from the ones this thread holds and the ones it brought; a key found in neither is an error. */
export function receiveBlocks(delta: BlocksDelta, held: RoutingBlocks): RoutingBlocks {
  const part = (sent: KeysAndNew, heldMap: ReadonlyMap<string, SharedArrayBuffer>) => {
    const out = new Map<string, SharedArrayBuffer>();
    for (const key of sent.keys) {
      const block = sent.added.get(key) ?? heldMap.get(key);
      if (block === undefined) throw new Error(`routing memory has no block for ${key.replaceAll(/[\u0000\u0001]/g, '/')}`);
      out.set(key, block);
    }
    return out;
  };
  return {
    workers: delta.workers,
    cellFloats: delta.cellFloats,
    lanes: part(delta.lanes, held.lanes),
    cells: part(delta.cells, held.cells),
    pools: part(delta.pools, held.pools),
  };
}
