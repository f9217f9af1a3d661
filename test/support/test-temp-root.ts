// vitest globalSetup: every test file, and every process a test starts, makes its temporary files
// under one directory of this run, removed when the run ends. Many tests make a temp dir per case
// (stores, configs, certificates) and a few cannot remove theirs (a process killed on purpose);
// without this a developer's /tmp grew by gigabytes over a few hundred runs.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const root = mkdtempSync(join(tmpdir(), 'gateway-tests-'));
  // As /tmp itself: other users the tests run servers as (PostgreSQL's initdb as `postgres` when
  // the suite runs as root) must reach their own directories in it.
  chmodSync(root, 0o1777);
  const before = process.env.TMPDIR;
  // Read by os.tmpdir() in the test workers vitest forks after this, and by their child processes.
  process.env.TMPDIR = root;
  return () => {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
    rmSync(root, { recursive: true, force: true });
  };
}
