/**
 * The routing state's memory: one SharedArrayBuffer that every data-plane worker thread maps, so a
 * breaker trip, a half-open probe or a lane's in-flight count is one fact across threads.
 *
 * Layout (all zero means "fresh": closed breakers, empty windows, nothing in flight):
 *   Int32  locks[cells]                    one spin lock per breaker cell
 *   Int32  laneInFlight[lanes]             total in flight per lane (max_concurrent)
 *   Int32  laneInFlightByWorker[lanes * workers]  what each worker holds, returned if it dies
 *   Int32  poolFailovers[pools]
 *   Float64 cells[cells * CELL_FLOATS]     breaker fields, see breaker-cell.ts
 * Slots are assigned in configuration order, which every thread sees the same way because the
 * main thread hands workers the configuration it loaded.
 */
export interface RoutingLayout {
  readonly cells: number;
  readonly lanes: number;
  readonly pools: number;
  readonly workers: number;
  /** Float64 fields per breaker cell. */
  readonly cellFloats: number;
}

/** One breaker cell's fields and its lock. */
export interface CellSlot {
  readonly fields: Float64Array;
  readonly locks: Int32Array;
  readonly lockIndex: number;
}

export class RoutingMemory {
  readonly buffer: SharedArrayBuffer;
  readonly layout: RoutingLayout;
  private readonly locks: Int32Array;
  readonly laneInFlight: Int32Array;
  readonly laneInFlightByWorker: Int32Array;
  readonly poolFailovers: Int32Array;
  private readonly cells: Float64Array;

  /** A fresh buffer (`buffer` undefined) or a view of one another thread created with the same layout. */
  constructor(layout: RoutingLayout, buffer?: SharedArrayBuffer) {
    const ints = layout.cells + layout.lanes + layout.lanes * layout.workers + layout.pools;
    const floatsAt = Math.ceil((ints * 4) / 8) * 8;
    const bytes = floatsAt + layout.cells * layout.cellFloats * 8;
    if (buffer !== undefined && buffer.byteLength !== bytes) throw new Error(`routing memory is ${buffer.byteLength} bytes, the layout needs ${bytes}`);
    this.layout = layout;
    this.buffer = buffer ?? new SharedArrayBuffer(bytes);
    let at = 0;
    const ints32 = (n: number) => {
      const view = new Int32Array(this.buffer, at * 4, n);
      at += n;
      return view;
    };
    this.locks = ints32(layout.cells);
    this.laneInFlight = ints32(layout.lanes);
    this.laneInFlightByWorker = ints32(layout.lanes * layout.workers);
    this.poolFailovers = ints32(layout.pools);
    this.cells = new Float64Array(this.buffer, floatsAt, layout.cells * layout.cellFloats);
  }

  cell(index: number): CellSlot {
    const start = index * this.layout.cellFloats;
    return { fields: this.cells.subarray(start, start + this.layout.cellFloats), locks: this.locks, lockIndex: index };
  }
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
