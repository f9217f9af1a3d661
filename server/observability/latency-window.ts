/** Percentiles of the most recent samples: a ring buffer, so memory and the cost of a read are bounded. */
export interface LatencySummary {
  /** Samples the percentiles are computed over (at most the window's size). */
  readonly window: number;
  readonly p50: number | null;
  readonly p90: number | null;
  readonly p99: number | null;
}

export const DEFAULT_WINDOW = 1024;

export class LatencyWindow {
  private readonly samples: Float64Array;
  private next = 0;
  private filled = 0;

  constructor(size = DEFAULT_WINDOW) {
    this.samples = new Float64Array(size);
  }

  add(ms: number): void {
    this.samples[this.next] = ms;
    this.next = (this.next + 1) % this.samples.length;
    if (this.filled < this.samples.length) this.filled++;
  }

  /** Nearest-rank percentiles (each one a sample that was seen), null before any sample. */
  summary(): LatencySummary {
    return summarise([this.recent()]);
  }

  /** The samples held (a copy, in no particular order): plain data another thread can merge. */
  recent(): Float64Array {
    return this.samples.slice(0, this.filled);
  }
}

/** Nearest-rank percentiles over several windows' samples together (one per data-plane thread). */
export function summarise(windows: readonly Float64Array[]): LatencySummary {
  const filled = windows.reduce((n, w) => n + w.length, 0);
  if (filled === 0) return { window: 0, p50: null, p90: null, p99: null };
  const sorted = new Float64Array(filled);
  let at = 0;
  for (const w of windows) {
    sorted.set(w, at);
    at += w.length;
  }
  sorted.sort();
  const rank = (p: number) => round(sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)]!);
  return { window: filled, p50: rank(0.5), p90: rank(0.9), p99: rank(0.99) };
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}
