// dist/gateway for the tests that run the single executable (test/binary, test/deploy): built when
// missing or older than its sources, once per test run however many files ask at the same time
// (a lock directory beside it: vitest runs files in parallel, and a build takes a minute of CPU).
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';

const ROOT = new URL('../../', import.meta.url).pathname;
export const GATEWAY_BINARY = join(ROOT, 'dist/gateway');
const NODE = join(ROOT, 'node_modules/.bin/node');
const LOCK = join(ROOT, 'dist/.build-lock');
/** What the executable is made of: when any of it is newer than dist/gateway, it is rebuilt. */
const SOURCES = ['server', 'generated', 'build', 'catalog/providers.yaml', 'spec/openapi.json', 'package.json', 'package-lock.json'];
/** A lock older than this is a build that died with its holder. */
const STALE_LOCK_MS = 180_000;

/** Builds dist/gateway unless it is up to date; returns the build's output ('' when none ran). */
export async function ensureGatewayBinary(timeoutMs = 150_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  mkdirSync(join(ROOT, 'dist'), { recursive: true });
  while (!tryLock()) {
    if (Date.now() > deadline) throw new Error(`dist/gateway: another build held ${LOCK} for too long`);
    await sleep(500);
  }
  try {
    if (!isStale()) return '';
    const { stdout } = await promisify(execFile)(NODE, [join(ROOT, 'build/build-binary.ts')], { cwd: ROOT, timeout: Math.max(1000, deadline - Date.now()) });
    return stdout.trimEnd();
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

function tryLock(): boolean {
  try {
    mkdirSync(LOCK);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    try {
      if (Date.now() - statSync(LOCK).mtimeMs > STALE_LOCK_MS) rmSync(LOCK, { recursive: true, force: true });
    } catch {
      // released meanwhile: the next try takes it
    }
    return false;
  }
}

function isStale(): boolean {
  let built: number;
  try {
    built = statSync(GATEWAY_BINARY).mtimeMs;
  } catch {
    return true;
  }
  return SOURCES.some((source) => newestMtime(join(ROOT, source)) > built);
}

function newestMtime(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path, { recursive: true, encoding: 'utf8' }).map((entry) => statSync(join(path, entry)).mtimeMs));
}
