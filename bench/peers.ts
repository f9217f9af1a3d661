// Peer gateways a team can put beside this one on its own machine (BENCH_PEERS=portkey,litellm):
// each installed by the bench on first use into bench/.peers/<name> (ignored by git; the version
// is pinned here and recorded in the results), configured to send to the same mock upstream, and
// run like the other targets inside the bench's private network namespace. Never part of
// `make test`. Installing needs the registries, so it happens before the namespace is entered.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { clientRequest, type ClientRequest } from './client-requests.ts';
import { BENCH_UPSTREAM_KEY, UPSTREAM_MODEL } from './gateway-config.ts';

export type PeerName = 'portkey' | 'litellm';
export const PEER_NAMES: readonly PeerName[] = ['portkey', 'litellm'];

/** The pinned versions (Portkey from npm, LiteLLM from PyPI with its proxy extra). */
export const PEER_VERSIONS: Record<PeerName, string> = { portkey: '1.15.2', litellm: '1.108.7' };

export function peersFrom(raw: string | undefined): PeerName[] {
  if (raw === undefined || raw.trim() === '') return [];
  const names = raw.split(',').map((s) => s.trim().toLowerCase());
  for (const n of names) if (!PEER_NAMES.includes(n as PeerName)) throw new Error(`BENCH_PEERS: unknown peer "${n}" (known: ${PEER_NAMES.join(', ')})`);
  return [...new Set(names)] as PeerName[];
}

const peerDir = (root: string, name: PeerName) => join(root, 'bench/.peers', name);

function run(command: string, args: readonly string[], cwd: string): void {
  const result = spawnSync(command, args, { cwd, stdio: ['ignore', 'inherit', 'inherit'] });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} (in ${cwd}) failed: ${result.error?.message ?? `exit ${result.status}`}`);
}

/** Installs each peer unless its folder already holds the pinned version (a stamp file says which). */
export function installPeers(root: string, peers: readonly PeerName[], log: (line: string) => void): void {
  for (const name of peers) {
    const dir = peerDir(root, name);
    const stamp = join(dir, '.installed');
    if (existsSync(stamp) && readFileSync(stamp, 'utf8').trim() === PEER_VERSIONS[name]) continue;
    mkdirSync(dir, { recursive: true });
    log(`installing peer ${name} ${PEER_VERSIONS[name]} into ${dir}`);
    if (name === 'portkey') {
      writeFileSync(join(dir, 'package.json'), '{ "private": true }\n');
      run('npm', ['install', '--no-audit', '--no-fund', '--no-save', `@portkey-ai/gateway@${PEER_VERSIONS.portkey}`], dir);
    } else {
      if (!existsSync(join(dir, 'venv/bin/python'))) run('python3', ['-m', 'venv', 'venv'], dir);
      run(join(dir, 'venv/bin/pip'), ['install', '--disable-pip-version-check', '-q', `litellm[proxy]==${PEER_VERSIONS.litellm}`], dir);
    }
    writeFileSync(stamp, `${PEER_VERSIONS[name]}\n`);
  }
}

export interface PeerProcess {
  readonly name: PeerName;
  readonly version: string;
  readonly url: string;
  readonly pid: number;
  /** The command line, for the results. */
  readonly command: string;
  /** What an OpenAI client sends this peer to reach the mock's OpenAI route. */
  request(stream: boolean): ClientRequest;
  /** Whether it answered a stream request with a 200 when it started (its stream rows are left out otherwise). */
  readonly streams: boolean;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const START_TIMEOUT_MS = 180_000;

/** Starts a peer and waits until its port answers HTTP (LiteLLM takes a while to import itself). */
export async function startPeer(root: string, name: PeerName, mockUrl: string, log: (line: string) => void): Promise<PeerProcess> {
  const dir = peerDir(root, name);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const upstream = `${mockUrl}/v1`;
  let command: string;
  let args: string[];
  let env: Record<string, string> = {};
  let request: (stream: boolean) => ClientRequest;
  if (name === 'portkey') {
    // The upstream goes in each request's headers (Portkey's custom host; loopback is trusted by default).
    command = process.execPath;
    args = [join(dir, 'node_modules/@portkey-ai/gateway/build/start-server.js'), `--port=${port}`, '--headless'];
    env = { NODE_ENV: 'production' };
    request = (stream) => {
      const r = clientRequest('openai', UPSTREAM_MODEL, stream, BENCH_UPSTREAM_KEY);
      return { ...r, headers: { ...r.headers, 'x-portkey-provider': 'openai', 'x-portkey-custom-host': upstream } };
    };
  } else {
    const config = join(dir, 'bench-config.yaml');
    writeFileSync(
      config,
      [
        'model_list:',
        '  - model_name: to-openai',
        '    litellm_params:',
        `      model: openai/${UPSTREAM_MODEL}`,
        `      api_base: ${upstream}`,
        `      api_key: ${BENCH_UPSTREAM_KEY}`,
        'litellm_settings:',
        '  telemetry: false',
        '',
      ].join('\n'),
    );
    // It refuses to start without a master key (every request would pass unauthenticated): one
    // made for the run, which its clients send.
    const masterKey = `sk-${randomBytes(32).toString('hex')}`;
    command = join(dir, 'venv/bin/litellm');
    // One worker per core, as the gateway's default.
    args = [
      '--config',
      config,
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
      '--num_workers',
      String(Math.max(1, (await import('node:os')).availableParallelism())),
    ];
    env = { LITELLM_LOG: 'ERROR', LITELLM_TELEMETRY: 'False', LITELLM_LOCAL_MODEL_COST_MAP: 'True', LITELLM_MASTER_KEY: masterKey };
    request = (stream) => clientRequest('openai', 'to-openai', stream, masterKey);
  }
  const child = spawn(command, args, { cwd: dir, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  // The last of what it printed, for an error; drained, never parsed.
  let stderr = '';
  const keep = (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  let exited = false;
  const exit = new Promise<void>((resolve) =>
    child.once('exit', () => {
      exited = true;
      resolve();
    }),
  );
  // The whole group: LiteLLM's workers are processes of their own.
  const signal = (sig: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, sig);
    } catch {
      // already gone
    }
  };
  const stop = async () => {
    if (exited) return;
    signal('SIGTERM');
    const killer = setTimeout(() => signal('SIGKILL'), 5000);
    await exit;
    clearTimeout(killer);
  };
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (true) {
    if (exited) throw new Error(`peer ${name} exited before it answered: ${stderr}`);
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`peer ${name} did not answer in ${START_TIMEOUT_MS / 1000} s: ${stderr}`);
    }
    try {
      const probe = request(false);
      const res = await fetch(url + probe.path, { method: 'POST', headers: probe.headers, body: probe.body });
      await res.arrayBuffer();
      if (res.status === 200) break;
      log(`peer ${name}: HTTP ${res.status} while starting`);
    } catch {
      // not listening yet
    }
    await sleep(500);
  }
  // Portkey 1.15.2 on Node 24 answers every stream with a 500 ("TypeError: immutable" in its log).
  const probe = request(true);
  const streamed = await fetch(url + probe.path, { method: 'POST', headers: probe.headers, body: probe.body });
  const streamText = await streamed.text();
  const streams = streamed.status === 200;
  if (!streams) log(`peer ${name}: a stream request got HTTP ${streamed.status} ${streamText.slice(0, 200)}: its stream rows are left out`);
  log(`peer ${name} ${PEER_VERSIONS[name]} answering at ${url} (pid ${child.pid})`);
  return { name, version: PEER_VERSIONS[name], url, pid: child.pid!, command: [command, ...args].join(' '), request, streams, stop };
}
