// The real `server/main.ts` as a child process, for what only a process shows: signals, exit
// codes, the log. Resolves once it logs "gateway started"; every log line is kept, parsed.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const ROOT = new URL('../../', import.meta.url).pathname;

export interface GatewayProcess {
  readonly child: ChildProcess;
  readonly dataUrl: string;
  readonly adminUrl: string;
  /** Log lines so far, parsed. */
  readonly lines: Record<string, unknown>[];
  /** Resolves with the exit code (or signal) once the process has exited and its output ended. */
  exited(): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Writes `configYaml` (and `files`) to a fresh directory and starts the gateway on it, named by
 * `--config` (or by GATEWAY_CONFIG with `configFromEnv`), with `args` after it.
 */
export async function startGatewayProcess(
  configYaml: string,
  options: { env?: Record<string, string>; files?: Record<string, string>; args?: readonly string[]; configFromEnv?: boolean } = {},
): Promise<GatewayProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-process-'));
  for (const [name, text] of Object.entries(options.files ?? {})) writeFileSync(join(dir, name), text);
  writeFileSync(join(dir, 'config.yaml'), configYaml);
  const configFile = join(dir, 'config.yaml');
  const child = spawn(
    process.execPath,
    [join(ROOT, 'server/main.ts'), ...(options.configFromEnv === true ? [] : ['--config', configFile]), ...(options.args ?? [])],
    {
      env: { ...process.env, ...options.env, ...(options.configFromEnv === true && { GATEWAY_CONFIG: configFile }) },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const lines: Record<string, unknown>[] = [];
  const reader = createInterface({ input: child.stdout! });
  const started = await new Promise<{ dataUrl: string; adminUrl: string }>((resolve, reject) => {
    void exit.then(({ code }) => reject(new Error(`gateway exited with ${code} before starting`)));
    reader.on('line', (line) => {
      const parsed = JSON.parse(line) as Record<string, unknown>;
      lines.push(parsed);
      if (parsed.msg === 'gateway started') resolve({ dataUrl: parsed.dataUrl as string, adminUrl: parsed.adminUrl as string });
    });
  });
  // 'exit' can come before the last lines are read: wait for stdout's end too.
  const outputEnded = new Promise<void>((resolve) => reader.once('close', resolve));
  return {
    child,
    ...started,
    lines,
    exited: async () => {
      const result = await exit;
      await outputEnded;
      return result;
    },
  };
}
