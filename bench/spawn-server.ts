import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface SpawnedServer {
  readonly url: string;
  readonly pid: number;
  /** The JSON line that announced the URL (the gateway's "gateway started" line carries adminUrl and workers). */
  readonly announcement: Readonly<Record<string, unknown>>;
  /** SIGTERM, then SIGKILL if the process has not exited within 5 s. */
  stop(): Promise<void>;
}

const START_TIMEOUT_MS = 20_000;
const STOP_TIMEOUT_MS = 5_000;

/**
 * Starts a server process and waits for the JSON line on its stdout that carries its URL (`url`,
 * or the gateway's `dataUrl`). `command` is an executable; the project's Node runs `.ts` files.
 */
export async function spawnServer(command: string, args: readonly string[], env: Record<string, string> = {}): Promise<SpawnedServer> {
  const child: ChildProcess = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  const label = [command, ...args].join(' ');
  const lines = createInterface({ input: child.stdout! });
  let exited = false;
  const exit = new Promise<void>((resolve) =>
    child.once('exit', () => {
      exited = true;
      resolve();
    }),
  );
  const announcement = await new Promise<Record<string, unknown>>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${label} did not start in ${START_TIMEOUT_MS / 1000} s`));
    }, START_TIMEOUT_MS);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`${label}: ${error.message}`));
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${label} exited with ${code}`));
    });
    lines.on('line', (line) => {
      if (!line.startsWith('{')) return;
      try {
        const parsed = JSON.parse(line) as Record<string, unknown>;
        if (typeof parsed.url === 'string' || typeof parsed.dataUrl === 'string') {
          clearTimeout(timer);
          resolve(parsed);
        }
      } catch {
        // not a JSON line
      }
    });
  });
  // From here on stdout is only drained, never parsed: a gateway logs a line per request, and
  // parsing them would spend the bench's CPU on the cores the targets are measured on.
  lines.removeAllListeners('line');
  lines.close();
  child.stdout!.on('data', () => {});
  child.stdout!.resume();
  const url = (announcement.url ?? announcement.dataUrl) as string;
  return {
    url,
    pid: child.pid!,
    announcement,
    stop: async () => {
      if (exited) return;
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
      await exit;
      clearTimeout(killer);
    },
  };
}
