// deploy/systemd/gateway.service: accepted by `systemd-analyze verify` without a warning, scored by
// `systemd-analyze security` (offline), hardened as a deployment review asks, and its reload and
// stop signals doing what the unit promises to the real gateway process.
import { execFile, spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfigText } from '../../server/config/load-config.ts';
import { startGatewayProcess } from '../support/gateway-process.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const UNIT_FILE = join(ROOT, 'deploy/systemd/gateway.service');
const UNIT = readFileSync(UNIT_FILE, 'utf8');
/** The exposure score README.md reports ("Deploying" > "systemd"); lower is safer, 0 to 10. */
const EXPOSURE_AT_MOST = 1.5;

const analyzeMissing = spawnSync('systemd-analyze', ['--version']).error !== undefined;
if (analyzeMissing) console.warn('systemd unit checks skipped: systemd-analyze is missing (Debian package systemd)');

const scratch = mkdtempSync(join(tmpdir(), 'gateway-unit-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Every `Key=value` of the unit, in order (a key may repeat, as SystemCallFilter does). */
function settings(unit: string): [string, string][] {
  return unit
    .split('\n')
    .filter((line) => /^[A-Za-z]+=/.test(line))
    .map((line) => {
      const at = line.indexOf('=');
      return [line.slice(0, at), line.slice(at + 1)];
    });
}
const setting = (key: string) =>
  settings(UNIT)
    .filter(([k]) => k === key)
    .map(([, v]) => v);

async function analyze(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)('systemd-analyze', args, {
      timeout: 30_000,
      env: { ...process.env, SYSTEMD_COLORS: '0', SYSTEMD_PAGER: '' },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    if (typeof e.code !== 'number') throw error;
    return { code: e.code, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

/** The unit under its own name in `scratch`, ExecStart's executable replaced by one that exists here. */
function unitHere(text: string, name = 'gateway.service'): string {
  const executable = join(scratch, 'gateway');
  writeFileSync(executable, '#!/bin/sh\n');
  chmodSync(executable, 0o755);
  const file = join(scratch, name);
  writeFileSync(file, text.replaceAll('/usr/local/bin/gateway', executable));
  return file;
}

async function exposure(file: string): Promise<number> {
  const run = await analyze(['security', '--offline=yes', '--no-pager', file]);
  const match = /Overall exposure level for [^:]+: (\d+(?:\.\d+)?)/.exec(run.stdout + run.stderr);
  if (match?.[1] === undefined) throw new Error(`no exposure level in:\n${run.stdout}${run.stderr}`);
  return Number(match[1]);
}

describe.skipIf(analyzeMissing)('deploy/systemd/gateway.service under systemd-analyze', () => {
  it('verifies without an error or a warning', async () => {
    const ok = await analyze(['verify', unitHere(UNIT)]);
    expect(ok).toEqual({ code: 0, stdout: '', stderr: '' });
    // The control: a directive systemd does not know is reported, so silence above means something.
    const typo = await analyze(['verify', unitHere(UNIT.replace('ProtectSystem=strict', 'ProtectSytem=strict'), 'typo.service')]);
    expect(typo.stderr).toContain("Unknown key 'ProtectSytem'");
  });

  it(`is scored as exposed ${EXPOSURE_AT_MOST} or less by systemd-analyze security`, async () => {
    const score = await exposure(unitHere(UNIT));
    console.log(`systemd-analyze security deploy/systemd/gateway.service: exposure ${score} (0 safest, 10 unsafe)`);
    expect(score).toBeLessThanOrEqual(EXPOSURE_AT_MOST);
    // The control: the same unit without its sandbox section scores far worse.
    const bare = UNIT.slice(0, UNIT.indexOf('# Sandbox.')) + UNIT.slice(UNIT.indexOf('[Install]'));
    expect(await exposure(unitHere(bare, 'bare.service'))).toBeGreaterThan(score + 3);
  }, 60_000);
});

describe('deploy/systemd/gateway.service, as written', () => {
  it('runs as its own user with the file system read-only but for its state directory', () => {
    expect(setting('DynamicUser')).toEqual(['yes']);
    expect(setting('User')).toEqual([]); // not root, not a shared account
    expect(setting('ProtectSystem')).toEqual(['strict']);
    expect(setting('ProtectHome')).toEqual(['yes']);
    expect(setting('PrivateTmp')).toEqual(['yes']);
    expect(setting('NoNewPrivileges')).toEqual(['yes']);
    expect(setting('CapabilityBoundingSet')).toEqual(['']);
    expect(setting('StateDirectory')).toEqual(['gateway']); // /var/lib/gateway: db_path
    expect(setting('ConfigurationDirectory')).toEqual(['gateway']); // /etc/gateway
    expect(setting('ReadWritePaths')).toEqual([]);
    expect(setting('RestrictAddressFamilies')).toEqual(['AF_INET AF_INET6 AF_UNIX AF_NETLINK']);
    expect(setting('SystemCallFilter')).toContain('@system-service');
    expect(setting('MemoryDenyWriteExecute')).toEqual([]); // V8's JIT would be killed
  });

  it('starts the gateway on /etc/gateway/config.yaml with secrets from an environment file', () => {
    expect(setting('ExecStart')).toEqual(['/usr/local/bin/gateway --config /etc/gateway/config.yaml']);
    expect(setting('EnvironmentFile')).toEqual(['-/etc/gateway/gateway.env']);
    expect(setting('Environment')).toEqual(['MALLOC_ARENA_MAX=2']); // at most two glibc malloc arenas (issue 19)
    expect(setting('Restart')).toEqual(['on-failure']);
    expect(setting('RestartPreventExitStatus')).toEqual(['2']); // an invalid configuration stays down
  });

  it('waits longer than the drain before it kills: TimeoutStopSec above shutdown_timeout_ms', () => {
    const drainMs = loadConfigText('models: {}\n', 'default.yaml', scratch).server.shutdownTimeoutMs;
    const [stop] = setting('TimeoutStopSec');
    const stopMs = Number(/^(\d+)s$/.exec(stop ?? '')?.[1]) * 1000;
    expect(stopMs).toBeGreaterThanOrEqual(drainMs + 10_000); // room for settling spend and flushing records
    expect(setting('KillMode')).toEqual(['mixed']);
  });

  it('reloads with SIGHUP, which the gateway survives, and stops with SIGTERM, which drains it', async () => {
    expect(setting('ExecReload')).toEqual(['/bin/kill -HUP $MAINPID']);
    const gateway = await startGatewayProcess(
      'listen: 127.0.0.1:0\nadmin_listen: 127.0.0.1:0\nworkers: 1\nmodels:\n  demo: { provider: demo, model: demo-echo }\n',
    );
    try {
      gateway.child.kill('SIGHUP');
      // The reload loads the file on a thread of its own: its log line comes when that is done.
      for (let waited = 0; waited < 15_000 && !gateway.lines.some((line) => line.signal === 'SIGHUP'); waited += 50) await sleep(50);
      expect({ code: gateway.child.exitCode, signal: gateway.child.signalCode }).toEqual({ code: null, signal: null }); // still running
      expect(gateway.lines.find((line) => line.signal === 'SIGHUP')?.msg).toBe('SIGHUP: the configuration is unchanged');
      expect((await fetch(`${gateway.dataUrl}/healthz`)).status).toBe(200);
      gateway.child.kill('SIGTERM'); // KillSignal= is left at its default, SIGTERM
      expect(setting('KillSignal')).toEqual([]);
      expect(await gateway.exited()).toEqual({ code: 0, signal: null });
    } finally {
      if (gateway.child.exitCode === null) gateway.child.kill('SIGKILL');
    }
  }, 30_000);
});
