// The official Python SDKs, for behaviour that is Python's own (openai-python closing a stream
// right after `[DONE]`, say). They live in a venv under the system temp dir, made once per
// requirements file (its hash names the folder) and reused by later runs, so `make test` installs
// what it needs by itself. A machine without python3 skips these tests, saying so.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const REQUIREMENTS = join(import.meta.dirname, 'python', 'requirements.txt');

export type PythonSdk = { readonly python: string } | { readonly skip: string };

/** The venv's python with the pinned SDKs installed, or why there is none. Blocks while installing. */
export function pythonSdk(): PythonSdk {
  const system = process.env.PYTHON ?? 'python3';
  const version = spawnSync(system, ['-c', 'import sys; print(sys.version_info >= (3, 9))'], { encoding: 'utf8' });
  if (version.error !== undefined) return { skip: `${system} is not installed (the Python SDK tests need Python 3.9 or newer)` };
  if (version.stdout.trim() !== 'True') return { skip: `${system} is older than 3.9` };
  const hash = createHash('sha256').update(readFileSync(REQUIREMENTS)).digest('hex').slice(0, 12);
  const venv = join(tmpdir(), `gateway-test-python-${hash}`);
  const python = join(venv, 'bin', 'python');
  if (existsSync(python)) return { python };
  // Built beside and renamed into place, so a run killed mid-install leaves no half-made venv.
  const building = `${venv}.${process.pid}`;
  rmSync(building, { recursive: true, force: true });
  const steps: [string, string[]][] = [
    [system, ['-m', 'venv', building]],
    [join(building, 'bin', 'python'), ['-m', 'pip', 'install', '-q', '--disable-pip-version-check', '-r', REQUIREMENTS]],
  ];
  for (const [command, args] of steps) {
    const run = spawnSync(command, args, { encoding: 'utf8', timeout: 300_000 });
    if (run.status !== 0) throw new Error(`installing the Python SDKs failed: ${command} ${args.join(' ')}\n${run.stderr ?? ''}${run.error?.message ?? ''}`);
  }
  try {
    renameSync(building, venv);
  } catch {
    rmSync(building, { recursive: true, force: true }); // another run made it first
  }
  return { python };
}

/**
 * Runs a Python script with the venv's interpreter, asynchronously (the gateway under test runs in
 * this process); `args` are its sys.argv[1:]. Its stdout, or a rejection with its stderr.
 */
export function runPython(python: string, script: string, env: Record<string, string>, args: readonly string[] = []): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(python, ['-c', script, ...args], { env: { ...process.env, ...env }, timeout: 60_000 });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`python failed (${code}): ${stderr}`))));
  });
}
