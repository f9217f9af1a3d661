import { Counter, Histogram, type Registry } from 'prom-client';

/**
 * Counter and histogram series kept as plain numbers and folded into their prom-client metric only
 * when it is read (a scrape, a worker's JSON, OTLP). A request adds to cells it found once for its
 * label set: no label object, hash or validation per observation, which prom-client does on every
 * `inc`/`observe` even through `labels(...)`. The exposition is the one prom-client gave when it
 * was fed directly: the same series, in the order each was first added to, the same values (each
 * cell sums its increments in the order they came, as prom-client did).
 */

/** One counter series: its labels (in the metric's label order) and its running total. */
export class CounterCell {
  readonly labels: Readonly<Record<string, string>>;
  value = 0;
  private readonly seen: CounterCell[];
  private live = false;

  constructor(labels: Readonly<Record<string, string>>, seen: CounterCell[]) {
    this.labels = labels;
    this.seen = seen;
  }

  /** Adds `by` (1 by default); refuses what prom-client's `inc` refuses (an infinite or negative amount). */
  inc(by = 1): void {
    if (by && !Number.isFinite(by)) throw new TypeError(`Value is not a valid number: ${by}`);
    if (by < 0) throw new Error('It is not possible to decrease a counter');
    if (!this.live) {
      this.live = true;
      this.seen.push(this);
    }
    this.value += by;
  }
}

/** One histogram series: per-bucket counts (not cumulative), sum and count. */
export class HistogramCell {
  readonly labels: Readonly<Record<string, string>>;
  readonly buckets: Float64Array;
  sum = 0;
  count = 0;
  private readonly bounds: readonly number[];
  private readonly seen: HistogramCell[];
  private live = false;

  constructor(labels: Readonly<Record<string, string>>, bounds: readonly number[], seen: HistogramCell[]) {
    this.labels = labels;
    this.bounds = bounds;
    this.buckets = new Float64Array(bounds.length);
    this.seen = seen;
  }

  observe(value: number): void {
    if (!Number.isFinite(value)) throw new TypeError(`Value is not a valid number: ${value}`);
    if (!this.live) {
      this.live = true;
      this.seen.push(this);
    }
    const { bounds } = this;
    // The first bound at or above the value; above the last one only the sum and count move (+Inf).
    for (let i = 0; i < bounds.length; i++) {
      if (value <= bounds[i]!) {
        this.buckets[i]!++;
        break;
      }
    }
    this.sum += value;
    this.count += 1;
  }
}

interface MetricSpec<L extends string> {
  readonly name: string;
  readonly help: string;
  readonly labelNames: readonly L[];
}

/** A label set's values, in the metric's label order, as one map key. */
function keyOf(values: readonly string[]): string {
  return values.join('\u0000');
}

function labelsOf(names: readonly string[], values: readonly string[]): Record<string, string> {
  const labels: Record<string, string> = {};
  for (let i = 0; i < names.length; i++) labels[names[i]!] = values[i] ?? '';
  return labels;
}

/** A prom-client counter whose series are CounterCells. */
export class CounterCells<L extends string> {
  private readonly spec: MetricSpec<L>;
  private readonly byKey = new Map<string, CounterCell>();
  /** Cells that have been added to, in the order of their first addition. */
  private readonly seen: CounterCell[] = [];

  constructor(registry: Registry, spec: MetricSpec<L>) {
    this.spec = spec;
    const seen = this.seen;
    new Counter<L>({
      ...spec,
      labelNames: [...spec.labelNames],
      registers: [registry],
      collect() {
        this.reset();
        for (const cell of seen) this.inc(cell.labels as Partial<Record<L, string>>, cell.value);
      },
    });
  }

  /** The cell of one label set (values in label order); look it up once and keep it. */
  cell(...values: string[]): CounterCell {
    const key = keyOf(values);
    let cell = this.byKey.get(key);
    if (cell === undefined) this.byKey.set(key, (cell = new CounterCell(labelsOf(this.spec.labelNames, values), this.seen)));
    return cell;
  }
}

/** The entry prom-client 15 keeps per histogram series (lib/histogram.js createBaseValues). */
interface PromHistogramEntry {
  labels: Readonly<Record<string, string>>;
  bucketValues: Record<number, number>;
  sum: number;
  count: number;
}

/** A prom-client histogram whose series are HistogramCells. */
export class HistogramCells<L extends string> {
  private readonly spec: MetricSpec<L> & { readonly buckets: readonly number[] };
  private readonly byKey = new Map<string, HistogramCell>();
  private readonly seen: HistogramCell[] = [];

  constructor(registry: Registry, spec: MetricSpec<L> & { readonly buckets: readonly number[] }) {
    this.spec = spec;
    const seen = this.seen;
    const bounds = spec.buckets;
    new Histogram<L>({
      ...spec,
      labelNames: [...spec.labelNames],
      buckets: [...bounds],
      registers: [registry],
      collect() {
        // prom-client has no way to add bucket counts but one observation at a time, so the series
        // are written in the form its `observe` leaves them (its export reads only this map); the
        // keys are ours, as nothing here looks a series up by prom-client's label hash.
        this.reset();
        const map = (this as unknown as { hashMap: Record<string, PromHistogramEntry> }).hashMap;
        for (let i = 0; i < seen.length; i++) {
          const cell = seen[i]!;
          const bucketValues: Record<number, number> = {};
          for (let b = 0; b < bounds.length; b++) bucketValues[bounds[b]!] = cell.buckets[b]!;
          map[`s${i}`] = { labels: cell.labels, bucketValues, sum: cell.sum, count: cell.count };
        }
      },
    });
  }

  cell(...values: string[]): HistogramCell {
    const key = keyOf(values);
    let cell = this.byKey.get(key);
    if (cell === undefined) this.byKey.set(key, (cell = new HistogramCell(labelsOf(this.spec.labelNames, values), this.spec.buckets, this.seen)));
    return cell;
  }
}
