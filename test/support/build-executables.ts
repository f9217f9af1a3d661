// Builds dist/gateway and dist/gateway-admin for the tests that run them (test/binary, test/deploy), once per test run: only
// an executable older than one of its sources is rebuilt, and a lock directory makes test files
// running at the same time wait for one build instead of starting their own.
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';

const ROOT = new URL('../../', import.meta.url).pathname;
const NODE = join(ROOT, 'node_modules/.bin/node');
const LOCK = join(ROOT, 'dist/.build-lock');
/** Enough for both builds on a busy machine (about 25 s and 15 s when idle), one after the other. */
export const BUILD_TIMEOUT_MS = 240_000;
/**
 * A lock older than this was left by a run that died. Each build may run BUILD_TIMEOUT_MS, so a
 * live holder building both is never taken for dead (the lock's time is not refreshed meanwhile).
 */
const STALE_LOCK_MS = 2 * BUILD_TIMEOUT_MS + 60_000;

/** What each executable is made of: when any of it is newer than the executable, it is rebuilt. */
const EXECUTABLES = {
  'dist/gateway': {
    sources: ['server', 'generated', 'build', 'catalog/providers.yaml', 'spec/openapi.json', 'package.json', 'package-lock.json'],
    build: ['build/build-binary.ts'],
  },
  'dist/gateway-admin': { sources: ['cli', 'clients-ts/src', 'build', 'package.json', 'package-lock.json'], build: ['build/build-cli.ts', '--executable'] },
} as const;
export type Executable = keyof typeof EXECUTABLES;

/**
 * The executable's path, built first if it is missing or stale. Every stale executable is built
 * then, not only this one: a test file that measures start-up must not run beside another build.
 */
export async function ensureBuilt(executable: Executable): Promise<string> {
  const stale = () => (Object.keys(EXECUTABLES) as Executable[]).filter((name) => isStale(join(ROOT, name), EXECUTABLES[name].sources));
  if (stale().length > 0) {
    await withLock(async () => {
      for (const name of stale()) {
        // re-checked under the lock: another test file may have built it
        const args = EXECUTABLES[name].build.map((arg) => (arg.startsWith('build/') ? join(ROOT, arg) : arg));
        const { stdout } = await promisify(execFile)(NODE, args, { cwd: ROOT, timeout: BUILD_TIMEOUT_MS });
        console.log(stdout.trimEnd());
      }
    });
  }
  return join(ROOT, executable);
}

async function withLock(work: () => Promise<void>): Promise<void> {
  mkdirSync(join(ROOT, 'dist'), { recursive: true });
  for (;;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      if (Date.now() - lockTime() > STALE_LOCK_MS) rmSync(LOCK, { recursive: true, force: true });
      else await sleep(500);
    }
  }
  try {
    await work();
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}

function lockTime(): number {
  try {
    return statSync(LOCK).mtimeMs;
  } catch {
    return 0;
  }
}

function isStale(output: string, sources: readonly string[]): boolean {
  let built: number;
  try {
    built = statSync(output).mtimeMs;
  } catch {
    return true;
  }
  return sources.some((source) => newestMtime(join(ROOT, source)) > built);
}

function newestMtime(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  // cli/dist (the npm package's build output) is not a source of the executable.
  return Math.max(
    stat.mtimeMs,
    ...readdirSync(path, { recursive: true, encoding: 'utf8' })
      .filter((entry) => !entry.startsWith('dist'))
      .map((entry) => statSync(join(path, entry)).mtimeMs),
  );
}
