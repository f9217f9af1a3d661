// A venv with the pinned Python SDKs (requirements.txt beside this file), made once per machine
// under the temp folder and reused while the pins are unchanged: `make test` installs what it needs.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const HERE = new URL('.', import.meta.url).pathname;

/** The venv's python, installing the SDKs first when the venv is missing or its pins changed. */
export async function pythonWithSdks(): Promise<string> {
  const requirements = join(HERE, 'requirements.txt');
  const pins = createHash('sha256').update(readFileSync(requirements)).digest('hex').slice(0, 12);
  const venv = join(tmpdir(), `gateway-fidelity-venv-${pins}`);
  const python = join(venv, 'bin', 'python');
  const stamp = join(venv, '.installed');
  if (existsSync(stamp)) return python;
  await run(process.env.PYTHON ?? 'python3', ['-m', 'venv', venv]);
  await run(python, ['-m', 'pip', 'install', '-q', '--disable-pip-version-check', '-r', requirements], { maxBuffer: 16 * 1024 * 1024 });
  writeFileSync(stamp, pins);
  return python;
}

/** Runs `script` (beside this file) with the venv's python; resolves with its stdout. */
export async function runPython(python: string, script: string, args: readonly string[]): Promise<string> {
  const { stdout } = await run(python, [join(HERE, script), ...args], { maxBuffer: 16 * 1024 * 1024, env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' } });
  return stdout;
}
