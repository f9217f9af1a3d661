// Temp dirs with real SQLite files, a settable clock, a seeded random source, and a quiet logger.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGovernance, type LocalGovernance } from '../../server/governance/governance.ts';
import type { Usage } from '../../server/ir/response.ts';
import { createLogger } from '../../server/shared/logger.ts';

export function tempDbPath(name = 'gateway.db'): string {
  return join(mkdtempSync(join(tmpdir(), 'gateway-governance-')), name);
}

export interface ManualClock {
  now(): number;
  set(ms: number): void;
  advance(ms: number): void;
}

export function manualClock(start = 1_000_000): ManualClock {
  let t = start;
  return {
    now: () => t,
    set: (ms) => {
      t = ms;
    },
    advance: (ms) => {
      t += ms;
    },
  };
}

/** mulberry32: the same seed gives the same sequence, so a failing property run can be replayed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const SILENT = createLogger('silent');

export function openGovernance(dbPath: string, options: { secret?: string; clock?: ManualClock; wall?: () => number } = {}): LocalGovernance {
  return createGovernance({
    dbPath,
    secret: options.secret,
    clock: options.clock ?? manualClock(),
    log: SILENT,
    ...(options.wall !== undefined && { wallClock: options.wall }),
  });
}

export function usage(input: number, output: number, cacheRead = 0, cacheWrite = 0): Usage {
  return { inputTokens: input, outputTokens: output, cacheReadTokens: cacheRead, cacheWriteTokens: cacheWrite, reasoningTokens: 0 };
}
