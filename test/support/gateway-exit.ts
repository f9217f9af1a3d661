// The real `server/main.ts` run to its end, for starts that must be refused: its exit code and
// what it wrote, whole. A gateway that starts instead is killed at the timeout (and says so).
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = new URL('../../', import.meta.url).pathname;

export interface GatewayExit {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the gateway with `args` (after `--config <file>` when `configYaml` is given). */
export function runGatewayToExit(
  configYaml: string | undefined,
  options: { args?: readonly string[]; env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<GatewayExit> {
  const args = [...(options.args ?? [])];
  if (configYaml !== undefined) {
    const dir = mkdtempSync(join(tmpdir(), 'gateway-exit-'));
    writeFileSync(join(dir, 'config.yaml'), configYaml);
    args.unshift('--config', join(dir, 'config.yaml'));
  }
  const child = spawn(process.execPath, [join(ROOT, 'server/main.ts'), ...args], {
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 15_000);
  return new Promise((resolve) =>
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}
