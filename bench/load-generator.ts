// Which load generator the throughput samples use. wrk (C, one thread) when it is there or can be
// installed like the test suite's system packages; autocannon (in the bench's own Node process,
// several times wrk's CPU per request, on the same cores as the targets) as the fallback.
// BENCH_GENERATOR=autocannon forces the fallback; =wrk fails when wrk cannot be had.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

export type Generator = 'wrk' | 'autocannon';

const onPath = (command: string) => spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;

/** Resolves BENCH_GENERATOR, installing wrk (Debian package) on first use; run before the private network namespace is entered. */
export function resolveGenerator(root: string, wanted: string | undefined, log: (line: string) => void): Generator {
  if (wanted === 'autocannon') return 'autocannon';
  if (wanted !== undefined && wanted !== '' && wanted !== 'wrk') throw new Error(`BENCH_GENERATOR=${wanted}: expected wrk or autocannon`);
  if (onPath('wrk')) return 'wrk';
  log('wrk not found: installing the Debian package (scripts/system-packages.sh wrk)');
  const installed = spawnSync('bash', [join(root, 'scripts/system-packages.sh'), 'wrk'], { stdio: ['ignore', 'inherit', 'inherit'] });
  if (installed.status === 0 && onPath('wrk')) return 'wrk';
  if (wanted === 'wrk') throw new Error('BENCH_GENERATOR=wrk: wrk could not be installed');
  log('wrk could not be installed: autocannon (in this process, on the same cores) generates the load; its CPU per request is reported beside the targets');
  return 'autocannon';
}
