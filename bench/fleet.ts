// The processes a run measures, each its own process so /proc tells their CPU apart: the mock
// upstream, the minimal proxy, up to three gateways (default workers, `workers: 1`, governance on)
// and the peers asked for (BENCH_PEERS; peers.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { MAIN_THREAD_NODE_FLAGS } from '../server/app/heap-sizing.ts';
import { GATEWAY_ENV, writeGatewayConfig } from './gateway-config.ts';
import { processAnonRssMiB, processRssMiB } from './process-cpu.ts';
import { treeRssMiB } from './process-tree.ts';
import type { ClientRequest } from './client-requests.ts';
import { startPeer, type PeerName, type PeerProcess } from './peers.ts';
import type { Settings } from './settings.ts';
import { spawnServer, type SpawnedServer } from './spawn-server.ts';

export type GatewayVariant = 'gateway' | 'gateway-w1' | 'gateway-gov';
export type TargetName = 'direct' | 'proxy' | GatewayVariant | PeerName;

const VARIANTS: Record<GatewayVariant, { workers: 'auto' | number; governance: boolean }> = {
  gateway: { workers: 'auto', governance: false },
  'gateway-w1': { workers: 1, governance: false },
  'gateway-gov': { workers: 'auto', governance: true },
};

export interface GatewayProcess {
  readonly server: SpawnedServer;
  /** Data-plane workers as the gateway resolved them (auto = one per core). */
  readonly workers: number;
  readonly adminUrl: string;
  /** What clients send as their key: a virtual key's secret with governance on, anything otherwise. */
  readonly apiKey: string;
  /** RSS after start, before any request (admin calls aside). */
  idleRssMiB: number;
  /** Its anonymous part (process-cpu.ts). */
  idleAnonRssMiB: number;
}

/** How long a fresh process is left alone before its idle RSS is read. */
const SETTLE_MS = 1500;

export class Fleet {
  readonly mock: SpawnedServer;
  readonly proxy: SpawnedServer;
  readonly gateways: ReadonlyMap<GatewayVariant, GatewayProcess>;
  readonly peers: ReadonlyMap<PeerName, PeerProcess>;
  /** Idle RSS of each peer's process tree, read with the gateways'. */
  readonly peerIdleRssMiB: ReadonlyMap<PeerName, number>;
  private readonly dirs: string[];

  private constructor(
    mock: SpawnedServer,
    proxy: SpawnedServer,
    gateways: Map<GatewayVariant, GatewayProcess>,
    peers: Map<PeerName, PeerProcess>,
    peerIdleRssMiB: Map<PeerName, number>,
    dirs: string[],
  ) {
    this.mock = mock;
    this.proxy = proxy;
    this.gateways = gateways;
    this.peers = peers;
    this.peerIdleRssMiB = peerIdleRssMiB;
    this.dirs = dirs;
  }

  /** Starts the mock, the proxy and the gateways named; stops whatever started if one fails. */
  static async start(
    variants: ReadonlySet<GatewayVariant>,
    settings: Settings,
    root: string,
    peerNames: readonly PeerName[] = [],
    log: (line: string) => void = () => {},
  ): Promise<Fleet> {
    const started: { stop(): Promise<void> }[] = [];
    const dirs: string[] = [];
    try {
      const mock = await spawnServer(process.execPath, [join(root, 'bench/mock-upstream-server.ts')]);
      started.push(mock);
      const proxy = await spawnServer(process.execPath, [join(root, 'bench/minimal-proxy.ts')], { UPSTREAM: mock.url });
      started.push(proxy);
      const gateways = new Map<GatewayVariant, GatewayProcess>();
      for (const variant of variants) {
        const dir = mkdtempSync(join(tmpdir(), `gateway-bench-${variant}-`));
        dirs.push(dir);
        const config = writeGatewayConfig({
          dir,
          mockUrl: mock.url,
          ...VARIANTS[variant],
          paced: { chunks: settings.pacedChunks, intervalMs: settings.pacedIntervalMs },
          soakFailPercent: settings.soak?.failPercent ?? 30,
        });
        const [command, args] =
          settings.gatewayCommand === undefined ? checkoutGateway(root, ['--config', config]) : [settings.gatewayCommand, ['--config', config]];
        const server = await spawnServer(command, args, { ...GATEWAY_ENV });
        started.push(server);
        const adminUrl = String(server.announcement.adminUrl);
        const apiKey = VARIANTS[variant].governance ? await createVirtualKey(adminUrl) : 'bench-client-key';
        gateways.set(variant, {
          server,
          workers: Number(server.announcement.workers ?? 1),
          adminUrl,
          apiKey,
          idleRssMiB: Number.NaN,
          idleAnonRssMiB: Number.NaN,
        });
      }
      const peers = new Map<PeerName, PeerProcess>();
      for (const name of peerNames) {
        const peer = await startPeer(root, name, mock.url, log);
        started.push(peer);
        peers.set(name, peer);
      }
      await sleep(SETTLE_MS);
      for (const g of gateways.values()) {
        g.idleRssMiB = processRssMiB(g.server.pid);
        g.idleAnonRssMiB = processAnonRssMiB(g.server.pid);
      }
      const peerIdle = new Map([...peers].map(([name, p]) => [name, treeRssMiB(p.pid)] as const));
      return new Fleet(mock, proxy, gateways, peers, peerIdle, dirs);
    } catch (error) {
      await Promise.all(started.map((s) => s.stop()));
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
      throw error;
    }
  }

  private server(target: TargetName): Pick<SpawnedServer, 'url' | 'pid'> {
    const peer = this.peers.get(target as PeerName);
    if (peer !== undefined) return peer;
    if (target === 'direct') return this.mock;
    if (target === 'proxy') return this.proxy;
    const gateway = this.gateways.get(target as GatewayVariant);
    if (gateway === undefined) throw new Error(`${target} was not started`);
    return gateway.server;
  }

  url(target: TargetName): string {
    return this.server(target).url;
  }

  /** The process whose CPU a scenario is charged: none for direct (there is nothing in between). */
  pid(target: TargetName): number | undefined {
    return target === 'direct' ? undefined : this.server(target).pid;
  }

  apiKey(target: TargetName): string {
    return this.gateways.get(target as GatewayVariant)?.apiKey ?? 'bench-client-key';
  }

  /** A peer's own request (its headers or model name), else undefined: the scenario's usual one. */
  peerRequest(target: TargetName, stream: boolean): ClientRequest | undefined {
    return this.peers.get(target as PeerName)?.request(stream);
  }

  async stop(): Promise<void> {
    await Promise.all([
      ...[...this.gateways.values()].map((g) => g.server.stop()),
      ...[...this.peers.values()].map((p) => p.stop()),
      this.proxy.stop(),
      this.mock.stop(),
    ]);
    for (const dir of this.dirs) rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The gateway from the checkout as `make run` starts it: node with the main thread's flags
 * (server/app/heap-sizing.ts; the single executable carries the same ones inside).
 */
export function checkoutGateway(root: string, args: readonly string[]): [string, string[]] {
  return [process.execPath, [...MAIN_THREAD_NODE_FLAGS, join(root, 'server/main.ts'), ...args]];
}

/** A virtual key from the admin API (governance on); its secret is what clients send. */
async function createVirtualKey(adminUrl: string): Promise<string> {
  const res = await fetch(`${adminUrl}/api/v1/admin/keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-admin-token': GATEWAY_ENV.GATEWAY_ADMIN_TOKEN! },
    body: JSON.stringify({ name: 'bench' }),
  });
  if (res.status !== 201) throw new Error(`creating a virtual key: HTTP ${res.status} ${await res.text()}`);
  const { secret } = (await res.json()) as { secret?: unknown };
  if (typeof secret !== 'string') throw new Error('creating a virtual key: no secret in the answer');
  return secret;
}
