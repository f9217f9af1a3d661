// Paced streams: the mock writes N chunks M ms apart (each a delta with a marker `#c<i>#`), and
// concurrent clients (their starts spread over one interval) note when each chunk arrives. A gateway that buffers shows a later first byte
// or uneven gaps; one that coalesces shows several chunks arriving in one read. Direct is the
// reference: it carries the client's and the mock's own timer jitter on this machine.
import { Agent, request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Fleet } from './fleet.ts';
import { CHUNK_MARKER_PATTERN } from './mock-replies.ts';
import { PACED_TARGETS, requestFor, selected, type Scenario } from './scenarios.ts';
import type { Settings } from './settings.ts';
import { median, percentile } from './stats.ts';

export interface PacedRow {
  readonly scenario: Scenario;
  /** Streams measured (over all repeats). */
  readonly streams: number;
  /** Medians over the repeats of each repeat's percentile. */
  readonly ttfbP50Ms: number;
  readonly ttfbP99Ms: number;
  readonly addedTtfbP50Ms: number | null;
  /** Gaps between consecutive chunks of one stream. */
  readonly gapP50Ms: number;
  readonly gapP99Ms: number;
  /** Chunks that arrived in the same read as an earlier chunk of their stream. */
  readonly coalesced: number;
  readonly chunks: number;
  /** Streams that failed or lost chunks. */
  readonly errors: number;
}

interface StreamTiming {
  readonly ok: boolean;
  readonly ttfbMs: number;
  /** Arrival time of chunk 1..N, in order. */
  readonly arrivals: number[];
  readonly coalesced: number;
}

const MARKER_MAX_LENGTH = 12;
/** A stream silent this long fails instead of hanging the run. */
const IDLE_TIMEOUT_MS = 10_000;

function pacedStream(url: URL, path: string, body: Buffer, headers: Record<string, string | number>, agent: Agent, expected: number): Promise<StreamTiming> {
  return new Promise((resolve) => {
    const start = performance.now();
    const fail = (): void => resolve({ ok: false, ttfbMs: Number.NaN, arrivals: [], coalesced: 0 });
    const out = request({ host: url.hostname, port: Number(url.port), path, method: 'POST', headers, agent }, (res) => {
      let text = '';
      let ttfb = Number.NaN;
      let coalesced = 0;
      const arrivals = new Map<number, number>();
      const marker = new RegExp(CHUNK_MARKER_PATTERN.source, 'g');
      res.on('data', (chunk: Buffer) => {
        const now = performance.now();
        if (Number.isNaN(ttfb)) ttfb = now - start;
        const scanFrom = Math.max(0, text.length - MARKER_MAX_LENGTH); // a marker split across two reads completes in this one
        text += chunk.toString('latin1');
        marker.lastIndex = scanFrom;
        let fresh = 0;
        for (let m = marker.exec(text); m !== null; m = marker.exec(text)) {
          const id = Number(m[1]);
          if (!arrivals.has(id)) {
            arrivals.set(id, now);
            fresh++;
          }
        }
        if (fresh > 1) coalesced += fresh - 1;
      });
      res.once('end', () => {
        const ordered = Array.from({ length: expected }, (_, i) => arrivals.get(i + 1));
        const complete = ordered.every((t) => t !== undefined);
        resolve({ ok: res.statusCode === 200 && complete, ttfbMs: ttfb, arrivals: complete ? (ordered as number[]) : [], coalesced });
      });
      res.once('error', fail);
    });
    out.once('error', fail);
    out.setTimeout(IDLE_TIMEOUT_MS, () => out.destroy(new Error(`silent for ${IDLE_TIMEOUT_MS} ms`)));
    out.end(body);
  });
}

interface RepeatAccumulator {
  ttfb: number[];
  gaps: number[];
  coalesced: number;
  chunks: number;
  streams: number;
  errors: number;
}

export async function runPacedStreams(fleet: Fleet, settings: Settings, log: (line: string) => void): Promise<PacedRow[]> {
  const targets = selected(PACED_TARGETS, settings.filter);
  const agents = targets.map(() => new Agent({ keepAlive: true, maxSockets: settings.pacedStreams }));
  const perRepeat = targets.map((): { ttfbP50: number[]; ttfbP99: number[]; gapP50: number[]; gapP99: number[]; total: RepeatAccumulator } => ({
    ttfbP50: [],
    ttfbP99: [],
    gapP50: [],
    gapP99: [],
    total: { ttfb: [], gaps: [], coalesced: 0, chunks: 0, streams: 0, errors: 0 },
  }));
  log(
    `paced: ${targets.length} targets x ${settings.pacedRounds} rounds x ${settings.repeats} repeats of ${settings.pacedStreams} streams (${settings.pacedChunks} chunks, ${settings.pacedIntervalMs} ms apart)`,
  );
  try {
    for (let repeat = 0; repeat < settings.repeats; repeat++) {
      const acc = targets.map((): RepeatAccumulator => ({ ttfb: [], gaps: [], coalesced: 0, chunks: 0, streams: 0, errors: 0 }));
      const warmup = repeat === 0 ? 1 : 0; // one unrecorded round: connections open, code warm
      for (let round = 0; round < warmup + settings.pacedRounds; round++) {
        for (let k = 0; k < targets.length; k++) {
          const i = (round + k) % targets.length;
          const s = targets[i]!;
          const req = requestFor(s, fleet.apiKey(s.target), settings);
          const body = Buffer.from(req.body);
          const headers = { ...req.headers, 'content-length': body.length };
          const url = new URL(fleet.url(s.target));
          // Starts spread over one interval: concurrent streams, but not a synchronised burst of first requests.
          const stagger = settings.pacedIntervalMs / settings.pacedStreams;
          const timings = await Promise.all(
            Array.from({ length: settings.pacedStreams }, (_, n) =>
              sleep(n * stagger).then(() => pacedStream(url, req.path, body, headers, agents[i]!, settings.pacedChunks)),
            ),
          );
          if (round >= warmup) for (const t of timings) record(acc[i]!, t);
        }
      }
      for (const [i, a] of acc.entries()) {
        const r = perRepeat[i]!;
        r.ttfbP50.push(percentile(a.ttfb, 50));
        r.ttfbP99.push(percentile(a.ttfb, 99));
        r.gapP50.push(percentile(a.gaps, 50));
        r.gapP99.push(percentile(a.gaps, 99));
        r.total.coalesced += a.coalesced;
        r.total.chunks += a.chunks;
        r.total.streams += a.streams;
        r.total.errors += a.errors;
      }
    }
  } finally {
    for (const agent of agents) agent.destroy();
  }
  const direct = perRepeat[targets.findIndex((s) => s.target === 'direct')];
  return targets.map((s, i) => {
    const r = perRepeat[i]!;
    return {
      scenario: s,
      streams: r.total.streams,
      ttfbP50Ms: median(r.ttfbP50),
      ttfbP99Ms: median(r.ttfbP99),
      addedTtfbP50Ms: s.target === 'direct' || direct === undefined ? null : median(r.ttfbP50.map((x, repeat) => x - direct.ttfbP50[repeat]!)),
      gapP50Ms: median(r.gapP50),
      gapP99Ms: median(r.gapP99),
      coalesced: r.total.coalesced,
      chunks: r.total.chunks,
      errors: r.total.errors,
    };
  });
}

function record(acc: RepeatAccumulator, t: StreamTiming): void {
  acc.streams++;
  if (!t.ok) {
    acc.errors++;
    return;
  }
  acc.ttfb.push(t.ttfbMs);
  for (let c = 1; c < t.arrivals.length; c++) acc.gaps.push(t.arrivals[c]! - t.arrivals[c - 1]!);
  acc.coalesced += t.coalesced;
  acc.chunks += t.arrivals.length;
}
