import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface SpawnedServer {
  readonly url: string;
  readonly pid: number;
  stop(): void;
}

/**
 * Starts a server process and waits for the JSON line that carries its URL (`url`, or the
 * gateway's `dataUrl` log line).
 */
export async function spawnServer(args: readonly string[], env: Record<string, string> = {}): Promise<SpawnedServer> {
  const child: ChildProcess = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${args.join(' ')} did not start in 15 s`));
    }, 15_000);
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}`)));
    lines.on('line', (line) => {
      try {
        const parsed = JSON.parse(line) as { url?: string; dataUrl?: string };
        const found = parsed.url ?? parsed.dataUrl;
        if (found !== undefined) {
          clearTimeout(timer);
          resolve(found);
        }
      } catch {
        // not a JSON line
      }
    });
  });
  return { url, pid: child.pid!, stop: () => child.kill('SIGTERM') };
}
