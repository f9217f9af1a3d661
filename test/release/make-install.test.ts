// `make install` (every make target that runs code depends on it) runs `npm ci` only when
// package.json or package-lock.json differ in content from what the last install saw: not because a
// checkout or merge gave them a newer file time. Run on a copy of the Makefile and both files in a
// directory of the test's own, with a stand-in `npm` that records its calls.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync, chmodSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const ROOT = new URL('../../', import.meta.url).pathname;
let dir: string;
let calls: string;

function makeInstall(): string[] {
  rmSync(calls, { force: true });
  execFileSync('make', ['-s', 'install'], { cwd: dir, env: { ...process.env, PATH: `${join(dir, 'bin')}:${process.env.PATH}` }, stdio: 'ignore' });
  return existsSync(calls) ? readFileSync(calls, 'utf8').trim().split('\n') : [];
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'gateway-make-install-'));
  for (const file of ['Makefile', 'package.json', 'package-lock.json']) copyFileSync(join(ROOT, file), join(dir, file));
  calls = join(dir, 'npm-calls');
  mkdirSync(join(dir, 'bin'));
  // The stand-in npm records its arguments and makes node_modules, as npm ci would.
  writeFileSync(join(dir, 'bin/npm'), `#!/bin/sh\necho "$*" >> ${calls}\nmkdir -p node_modules\n`);
  chmodSync(join(dir, 'bin/npm'), 0o755);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('make install', () => {
  it('runs npm ci on a fresh checkout, then not again while the files hold the same content', () => {
    expect(makeInstall()).toEqual(['ci --no-audit --no-fund']);
    expect(makeInstall()).toEqual([]);
    const later = new Date(Date.now() + 60_000);
    utimesSync(join(dir, 'package-lock.json'), later, later); // what a checkout of an unchanged file does
    expect(makeInstall()).toEqual([]);
  });

  it('runs npm ci again when the lockfile changes, or node_modules is gone', () => {
    makeInstall();
    appendFileSync(join(dir, 'package-lock.json'), '\n');
    expect(makeInstall()).toEqual(['ci --no-audit --no-fund']);
    expect(makeInstall()).toEqual([]);
    rmSync(join(dir, 'node_modules'), { recursive: true });
    expect(makeInstall()).toEqual(['ci --no-audit --no-fund']);
  });
});
