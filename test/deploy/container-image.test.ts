// deploy/container/Containerfile, built with Debian's podman from dist/gateway, and its entrypoint
// run. Where the machine refuses to run containers (no user namespaces, cgroups or rlimits: this
// sandbox, many CI runners), the image's file system is exported and the entrypoint runs in it
// under chroot, as the image's user, in the image's working directory: nothing from the host is
// reachable, so a request served proves the image holds all the executable needs.
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from '../support/build-executables.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const NODE = join(ROOT, 'node_modules/.bin/node');
const CONTAINERFILE = join(ROOT, 'deploy/container/Containerfile');
const IMAGE_UID = 10001;
const PACKAGE = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
const run = promisify(execFile);

const podmanMissing = spawnSync('podman', ['--version']).error !== undefined;
// Root: the exported files keep their owners only when extracted by root, and the chroot fallback
// needs CAP_SYS_CHROOT and setuid (the suite's system packages need root or sudo anyway).
const notRoot = process.getuid?.() !== 0;
const skipReason = podmanMissing
  ? 'podman is not installed (scripts/system-packages.sh, run by make test-ts, installs it)'
  : notRoot
    ? 'it must run as root (owners kept on export, chroot, setuid)'
    : undefined;
if (skipReason !== undefined) console.warn(`container image test skipped: ${skipReason}`);

interface ImageConfig {
  User: string;
  WorkingDir: string;
  Entrypoint: string[];
  Cmd?: string[] | null;
  ExposedPorts: Record<string, object>;
  StopSignal?: string;
  Labels: Record<string, string>;
  Env?: string[];
}
/** podman reports HEALTHCHECK beside Config, durations in nanoseconds. */
interface Healthcheck {
  Test: string[];
  Interval: number;
  Timeout: number;
}

describe.skipIf(skipReason !== undefined)('the container image (deploy/container/Containerfile)', () => {
  let work: string;
  let rootfs: string; // the image's file system, exported
  let config: ImageConfig;
  let healthcheck: Healthcheck | undefined;
  const image = `localhost/gateway-test:${process.pid}`;
  /** Why podman cannot run a container on this machine; undefined when it can. */
  let engineRefusal: string | undefined;
  // A storage of the test's own (vfs: no overlay mounts needed), so the machine's images are untouched.
  const storage = () => [
    '--root',
    join(work, 'storage'),
    '--runroot',
    join(work, 'run'),
    '--storage-driver',
    'vfs',
    '--cgroup-manager',
    'cgroupfs',
    '--events-backend',
    'file',
  ];
  const podman = (args: string[]) => run('podman', [...storage(), ...args], { maxBuffer: 256 * 1024 * 1024, timeout: 120_000 });

  beforeAll(async () => {
    await ensureBuilt('dist/gateway'); // rebuilt when older than its sources
    work = mkdtempSync(join(tmpdir(), 'gateway-image-'));
    await run(NODE, [join(ROOT, 'build/container-context.ts'), join(work, 'context')], { cwd: ROOT });
    // --layers=false: no cached layer committed per instruction (half the build time on vfs);
    // the image's files, owners and config are the same.
    await podman([
      'build',
      '--quiet',
      '--layers=false',
      '--format',
      'docker',
      '--build-arg',
      `VERSION=${PACKAGE.version}`,
      '--file',
      CONTAINERFILE,
      '--tag',
      image,
      join(work, 'context'),
    ]);
    const inspected = (JSON.parse((await podman(['image', 'inspect', image])).stdout) as { Config: ImageConfig; Healthcheck?: Healthcheck }[])[0]!;
    config = inspected.Config;
    healthcheck = inspected.Healthcheck;
    // The file system as the image holds it (owners and modes kept: extracted as root).
    const container = (await podman(['create', image])).stdout.trim();
    const archive = join(work, 'image.tar');
    await podman(['export', '--output', archive, container]);
    await podman(['rm', container]);
    rootfs = join(work, 'rootfs');
    mkdirSync(rootfs);
    await run('tar', ['-x', '--same-owner', '-p', '-f', archive, '-C', rootfs]);
    rmSync(archive);

    // Can this machine run a container? The entrypoint's --version, with nothing else asked of the engine.
    const tried = await exitOf(podman(['run', '--rm', '--network', 'none', '--no-healthcheck', image, '--version']));
    if (tried.code !== 0) {
      // Refused by the engine (no user namespaces, cgroups, rlimits), not the gateway failing inside it.
      expect(tried.stderr).toMatch(/OCI|crun|runc|cgroup|namespace|setrlimit|permission/i);
      engineRefusal = tried.stderr.trim().split('\n').at(-1);
      console.log(`podman cannot run containers here (${engineRefusal}): the entrypoint runs in the exported image under chroot`);
    }
  }, 300_000);

  afterAll(() => {
    if (work !== undefined) rmSync(work, { recursive: true, force: true });
  });

  it('runs as an unprivileged numeric user, with a health check, its ports and its config directory', () => {
    expect(config.User).toBe(`${IMAGE_UID}:${IMAGE_UID}`);
    expect(config.Entrypoint).toEqual(['/usr/local/bin/gateway']);
    expect(config.Cmd ?? []).toEqual([]);
    expect(config.WorkingDir).toBe('/etc/gateway'); // ./config.yaml is /etc/gateway/config.yaml
    expect(Object.keys(config.ExposedPorts).sort()).toEqual(['8080/tcp', '8081/tcp']);
    expect(healthcheck?.Test).toEqual(['CMD', '/usr/local/bin/gateway', '--healthcheck', 'http://127.0.0.1:8080/healthz']);
    // At most two glibc malloc arenas (issue 19: less memory idle and under load).
    expect(config.Env ?? []).toContain('MALLOC_ARENA_MAX=2');
    expect(healthcheck?.Interval).toBe(30e9);
    expect(healthcheck?.Timeout).toBeGreaterThan(3e9); // above the probe's own 3 s limit, so its reason reaches the log
    expect(config.StopSignal).toBe('SIGTERM');
    expect(config.Labels['org.opencontainers.image.version']).toBe(PACKAGE.version);
    const passwd = readFileSync(join(rootfs, 'etc/passwd'), 'utf8');
    expect(passwd).toMatch(new RegExp(`^gateway:x:${IMAGE_UID}:${IMAGE_UID}:[^:]*:/var/lib/gateway:/sbin/nologin$`, 'm'));
  });

  it('holds the executable, the libraries it links, passwd, nsswitch.conf and the CA bundle: nothing else', async () => {
    const linked = (await run('ldd', [join(ROOT, 'dist/gateway')])).stdout
      .split('\n')
      .flatMap((line) => /(\/\S+)\s+\(0x/.exec(line)?.[1] ?? [])
      .map((path) => path.slice(1));
    expect(linked.length).toBeGreaterThan(2);
    const files = walk(rootfs).filter((entry) => !lstatSync(join(rootfs, entry)).isDirectory());
    expect(files.sort()).toEqual(
      ['etc/group', 'etc/nsswitch.conf', 'etc/passwd', 'etc/ssl/certs/ca-certificates.crt', 'usr/local/bin/gateway', ...linked].sort(),
    );
    expect(existsSync(join(rootfs, 'bin/sh'))).toBe(false);
    // All of it root's and read-only to the gateway user, except its state directory (and /tmp).
    for (const entry of walk(rootfs)) {
      const stat = lstatSync(join(rootfs, entry));
      const own = entry === 'var/lib/gateway';
      expect({ entry, uid: stat.uid, gid: stat.gid }).toEqual({ entry, uid: own ? IMAGE_UID : 0, gid: own ? IMAGE_UID : 0 });
      if (entry !== 'tmp') expect({ entry, worldWritable: (stat.mode & 0o002) !== 0 }).toEqual({ entry, worldWritable: false });
    }
    expect(statSync(join(rootfs, 'tmp')).mode & 0o7777).toBe(0o1777);
  });

  it('without a config mounted, its entrypoint serves the embedded demo on 8080 and passes the HEALTHCHECK as written', async () => {
    // In a network namespace of its own (as a container has), so port 8080 is its own.
    const gateway = await startEntrypoint(undefined);
    try {
      expect(gateway.started).toMatchObject({ source: '(embedded default)', dataUrl: 'http://127.0.0.1:8080' });
      // Bound on every interface (0.0.0.0:8080, listening), or a published port would reach nothing.
      const sockets = readFileSync(`/proc/${gateway.pid}/net/tcp`, 'utf8')
        .split('\n')
        .map((line) => line.trim().split(/\s+/));
      expect(sockets.some(([, local, , state]) => local === '00000000:1F90' && state === '0A')).toBe(true);
      const probe = (healthcheck?.Test ?? []).slice(1);
      expect(await gateway.exec(probe)).toEqual({ code: 0, stderr: '' });

      // A client beside it, in its network namespace (a host tool: the image has no client in it).
      const script = `const r = await fetch('http://127.0.0.1:8080/v1/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'demo', messages: [{ role: 'user', content: 'demo in the image' }] }) });
console.log(JSON.stringify({ status: r.status, body: await r.json() }));`;
      const answer = JSON.parse(
        (await run('nsenter', [`--net=/proc/${gateway.pid}/ns/net`, NODE, '--input-type=module', '-e', script], { timeout: 20_000 })).stdout,
      ) as { status: number; body: { choices: { message: { content: string } }[] } };
      expect(answer.status).toBe(200);
      expect(answer.body.choices[0]?.message.content).toContain('demo in the image');

      gateway.proc.kill('SIGTERM');
      expect(await gateway.exited).toEqual({ code: 0, signal: null });
      expect(gateway.stderr()).toBe('');
    } finally {
      if (gateway.proc.exitCode === null && gateway.proc.signalCode === null) gateway.proc.kill('SIGKILL');
    }
  }, 60_000);

  it("with a config mounted at /etc/gateway/config.yaml, its entrypoint serves as the image's user, keeps its store in /var/lib/gateway and stops on SIGTERM", async () => {
    // What an operator mounts: the demo upstream, the store in the state directory, ports the
    // kernel picks (host network: the test's client reaches it directly).
    const configYaml = `listen: 127.0.0.1:0
admin_listen: 127.0.0.1:0
log_level: info
workers: 2
db_path: /var/lib/gateway/gateway.db
models:
  demo: { provider: demo, model: demo-echo }
  demo-claude: { provider: demo-anthropic, model: demo-echo }
`;
    const gateway = await startEntrypoint(configYaml);
    try {
      expect(gateway.started.source).toBe('/etc/gateway/config.yaml'); // found through the image's WORKDIR
      const dataUrl = gateway.started.dataUrl as string;
      const status = readFileSync(`/proc/${gateway.pid}/status`, 'utf8');
      expect(status).toMatch(new RegExp(`^Uid:\\s+${IMAGE_UID}\\s+${IMAGE_UID}\\s+${IMAGE_UID}\\s+${IMAGE_UID}$`, 'm'));
      expect(status).toMatch(/^Groups:\s*$/m); // no supplementary groups: not root's

      const chat = await fetch(`${dataUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer anything' },
        body: JSON.stringify({ model: 'demo-claude', messages: [{ role: 'user', content: 'hello from the image' }] }),
      });
      expect(chat.status).toBe(200);
      const completion = (await chat.json()) as { object: string; choices: { message: { content: string } }[] };
      expect(completion.object).toBe('chat.completion');
      expect(completion.choices[0]?.message.content).toContain('hello from the image');

      // The image's own HEALTHCHECK command, pointed at the port this run was given.
      const probe = [...(healthcheck?.Test ?? []).slice(1, -1), `${dataUrl}/healthz`];
      expect(await gateway.exec(probe)).toEqual({ code: 0, stderr: '' });

      gateway.proc.kill('SIGTERM');
      expect(await gateway.exited).toEqual({ code: 0, signal: null });
      expect(gateway.stderr()).toBe('');
      if (engineRefusal !== undefined) expect(statSync(join(rootfs, 'var/lib/gateway/gateway.db')).uid).toBe(IMAGE_UID); // the gateway user's, in the state directory

      // The same probe fails once nothing answers: the health check can tell.
      const down = await exitOf(run('unshare', [...inImage(), ...probe], { env: {}, timeout: 15_000 }));
      expect(down.code).toBe(1);
      expect(down.stderr).toContain('ECONNREFUSED');
    } finally {
      if (gateway.proc.exitCode === null && gateway.proc.signalCode === null) gateway.proc.kill('SIGKILL');
    }
  }, 60_000);

  interface Started {
    proc: ChildProcess;
    /** The gateway's pid on this machine. */
    pid: number;
    started: Record<string, unknown>;
    exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
    stderr: () => string;
    /** Runs a command the way the engine runs HEALTHCHECK: in the image, as its user, in its network. */
    exec: (command: string[]) => Promise<{ code: number; stderr: string }>;
  }

  /** unshare's options that put a command in the exported image, as its user, in its working directory. */
  function inImage(): string[] {
    return ['--root', rootfs, '--wd', config.WorkingDir, '--setuid', String(IMAGE_UID), '--setgid', String(IMAGE_UID)];
  }

  /**
   * Runs the image's entrypoint with `configYaml` at /etc/gateway/config.yaml on the host's network,
   * or, with none, in a network namespace of its own: by podman where it can run containers, else in
   * the exported file system under chroot.
   */
  async function startEntrypoint(configYaml: string | undefined): Promise<Started> {
    const entrypoint = [...config.Entrypoint, ...(config.Cmd ?? [])];
    if (engineRefusal === undefined) {
      const name = `gateway-test-${process.pid}-${configYaml === undefined ? 'demo' : 'mounted'}`;
      const configFile = join(work, 'config.yaml');
      if (configYaml !== undefined) writeFileSync(configFile, configYaml);
      const launched = await launch('podman', [
        ...storage(),
        'run',
        '--rm',
        '--name',
        name,
        '--read-only',
        '--cap-drop',
        'all',
        '--security-opt',
        'no-new-privileges',
        '--no-healthcheck',
        ...(configYaml === undefined ? ['--network', 'none'] : ['--network', 'host', '--volume', `${configFile}:/etc/gateway/config.yaml:ro`]),
        image,
      ]);
      if (!('started' in launched)) throw new Error(`the container exited before serving: ${launched.stderr}`);
      const pid = Number((await podman(['inspect', '--format', '{{.State.Pid}}', name])).stdout.trim());
      return { ...launched, pid, exec: (command) => exitOf(podman(['exec', name, ...command])) };
    }
    const configPath = join(rootfs, 'etc/gateway/config.yaml'); // where the mount would put it
    if (configYaml === undefined) rmSync(configPath, { force: true });
    else writeFileSync(configPath, configYaml);
    const launched =
      configYaml === undefined
        ? await launch('unshare', ['--net', '--', 'sh', '-c', 'ip link set lo up && exec "$@"', 'sh', 'unshare', ...inImage(), ...entrypoint])
        : await launch('unshare', [...inImage(), ...entrypoint]);
    if (!('started' in launched)) throw new Error(`the entrypoint exited before serving: ${launched.stderr}`);
    const pid = launched.proc.pid!;
    const enter = configYaml === undefined ? ['nsenter', `--net=/proc/${pid}/ns/net`, '--', 'unshare'] : ['unshare'];
    return { ...launched, pid, exec: (command) => exitOf(run(enter[0]!, [...enter.slice(1), ...inImage(), ...command], { env: {}, timeout: 15_000 })) };
  }

  /** Spawns with an empty environment and resolves at "gateway started", or with stderr at an early exit. */
  async function launch(command: string, args: string[]) {
    const proc = spawn(command, args, { env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin' }, stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      proc.once('exit', (code, signal) => resolve({ code, signal })),
    );
    let stderr = '';
    proc.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    return new Promise<{ proc: ChildProcess; exited: typeof exited; started: Record<string, unknown>; stderr: () => string } | { stderr: string }>(
      (resolve) => {
        createInterface({ input: proc.stdout }).on('line', (line) => {
          if (!line.startsWith('{')) return; // an engine's own message
          const entry = JSON.parse(line) as Record<string, unknown>;
          if (entry.msg === 'gateway started') resolve({ proc, exited, started: entry, stderr: () => stderr });
        });
        void exited.then(() => resolve({ stderr }));
      },
    );
  }
});

async function exitOf(pending: Promise<{ stderr: string | Buffer }>): Promise<{ code: number; stderr: string }> {
  try {
    return { code: 0, stderr: String((await pending).stderr) };
  } catch (error) {
    const e = error as { code?: number; stderr?: string };
    if (typeof e.code !== 'number') throw error;
    return { code: e.code, stderr: e.stderr ?? '' };
  }
}

/** Every path under `dir`, relative to it. */
function walk(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).map((entry) => relative(dir, join(dir, entry)));
}
