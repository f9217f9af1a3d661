// helm for the chart tests: a pinned release, built from its Go module once (`go install`) into
// ~/go/tools/helm-<version>/ and reused after. Without Go, the chart tests skip and say so.
import { execFile, execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

export const HELM_VERSION = 'v3.19.5';
/** A cold build (module download and compile) took 10.5 min on this project's loaded 2-core machine. */
export const HELM_INSTALL_TIMEOUT_MS = 20 * 60_000;

const HELM_DIR = join(homedir(), 'go', 'tools', `helm-${HELM_VERSION}`);

function findGo(): string | undefined {
  for (const candidate of ['go', '/usr/local/go/bin/go', '/usr/lib/go/bin/go']) {
    try {
      execFileSync(candidate, ['version'], { stdio: 'ignore' });
      return candidate;
    } catch {
      // not this one
    }
  }
  return undefined;
}

/** The helm binary's path, installing it first when missing; or why it cannot be had. */
export async function ensureHelm(): Promise<{ helm: string } | { skip: string }> {
  const helm = join(HELM_DIR, 'helm');
  if (existsSync(helm)) return { helm };
  const go = findGo();
  if (go === undefined) return { skip: `Go is not installed, so helm ${HELM_VERSION} (a Go module) cannot be built` };
  const started = performance.now();
  await promisify(execFile)(go, ['install', `helm.sh/helm/v3/cmd/helm@${HELM_VERSION}`], {
    env: { ...process.env, GOBIN: HELM_DIR, GOFLAGS: '-mod=mod' },
    timeout: HELM_INSTALL_TIMEOUT_MS,
    maxBuffer: 64 * 1024 * 1024,
  });
  console.log(`helm ${HELM_VERSION} built with go install in ${((performance.now() - started) / 1000).toFixed(0)} s (${helm})`);
  return { helm };
}
