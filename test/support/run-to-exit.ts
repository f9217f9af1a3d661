// A command run to its end, for tests that judge a command-line program by its exit code and
// output: a non-zero exit is a result, not an error. A process that was killed (the timeout) or
// could not start throws, so no test reads a made-up exit code.
import { execFile } from 'node:child_process';

export interface Exit {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export function runToExit(file: string, args: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<Exit> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { cwd: options.cwd, env: options.env, timeout: options.timeoutMs ?? 15_000 }, (error, stdout, stderr) => {
      if (error === null) resolve({ code: 0, stdout, stderr });
      else if (typeof error.code === 'number') resolve({ code: error.code, stdout, stderr });
      else reject(error);
    });
  });
}
