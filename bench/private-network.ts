// The bench runs its targets inside a private network namespace (`unshare -n`, loopback brought
// up): the mock, the baselines, the gateways and the peers talk over a loopback no other process
// on the machine can reach or fill (another bench's ports, a stray client), as in the issue's
// comparison. It needs root (or CAP_SYS_ADMIN); without it, or with BENCH_NETNS=0, the bench runs
// in the machine's own namespace and says so. Everything that needs the network beyond loopback
// (installing wrk and the peers) is done before the bench re-executes itself inside.
import { spawn, spawnSync } from 'node:child_process';

/** Set in the re-executed bench: it is inside already. */
const INSIDE = 'BENCH_NETNS_INSIDE';

export type NetworkPlace = 'private namespace' | 'host network';

export function networkPlace(): NetworkPlace {
  return process.env[INSIDE] === '1' ? 'private namespace' : 'host network';
}

/** Whether a private namespace can be made here (tried once, harmlessly). */
function canUnshare(): boolean {
  return spawnSync('unshare', ['-n', 'ip', 'link', 'set', 'lo', 'up'], { stdio: 'ignore' }).status === 0;
}

/**
 * Re-executes this bench inside a new network namespace and resolves with its exit code, or
 * resolves undefined when the bench should run here (already inside, turned off, not possible).
 */
export async function runInPrivateNetwork(log: (line: string) => void): Promise<number | undefined> {
  if (process.env[INSIDE] === '1') return undefined;
  if (process.env.BENCH_NETNS === '0') {
    log('BENCH_NETNS=0: the targets run on the host network');
    return undefined;
  }
  if (!canUnshare()) {
    log('no private network namespace (unshare -n needs root): the targets run on the host network');
    return undefined;
  }
  const argv = [process.execPath, ...process.execArgv, ...process.argv.slice(1)];
  const child = spawn('unshare', ['-n', 'sh', '-c', 'ip link set lo up && exec "$@"', 'bench-netns', ...argv], {
    stdio: 'inherit',
    env: { ...process.env, [INSIDE]: '1' },
  });
  // The bench inside stops its own processes on SIGINT/SIGTERM: pass them on and wait.
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? (signal === null ? 1 : 128 + 2))));
}
