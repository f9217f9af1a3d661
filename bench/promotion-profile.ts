// What a `workers: 1` gateway's requests leave behind: the objects that outlive the young
// generation, by allocation site. V8's sampling heap profiler keeps a sample until its object is
// collected; told to drop the samples minor GCs collect but keep those mark-compacts collect, what
// is left after a load window is what survived every scavenge it met (promoted garbage and live
// objects alike, whether or not a mark-compact ran since). The gateway runs with the shipped heap
// flags and --inspect on a loopback port; this script drives the inspector over its WebSocket.
// Per scenario: warm up, full GC, start sampling, wrk for AB_SECONDS, churn a few MiB of garbage
// in the gateway (so the young generation holds only what survived a scavenge), read the profile.
//   AB_SCENARIOS  comma-separated, as bench/ab.ts [openai->openai,openai->openai stream]
//   AB_B [this checkout], AB_SECONDS [3], AB_CONNECTIONS [32], PROFILE_TOP [25]
//   PROFILE_DIR   where the .heapprofile files are written [a temporary directory]
//   PROFILE_NODE_FLAGS  more node/V8 flags for the gateway, space-separated (a diagnosis)
//   PROFILE_SNAPSHOT=1  also a heap snapshot halfway through the load (.heapsnapshot beside the
//                 profiles): what is reachable then, for a retainer walk (it pauses the gateway)
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { MAIN_THREAD_NODE_FLAGS } from '../server/app/heap-sizing.ts';
import type { ProtocolId } from '../server/ir/index.ts';
import { clientRequest } from './client-requests.ts';
import { GcTally } from './gc-tally.ts';
import { GATEWAY_ENV, gatewayModel, writeGatewayConfig } from './gateway-config.ts';
import { runLoad, warmUp } from './load-runner.ts';
import { spawnServer } from './spawn-server.ts';

const here = fileURLToPath(new URL('..', import.meta.url)).replace(/\/$/, '');
const tree = process.env.AB_B ?? here;
const seconds = Number(process.env.AB_SECONDS ?? 3);
const connections = Number(process.env.AB_CONNECTIONS ?? 32);
const top = Number(process.env.PROFILE_TOP ?? 25);
const scenarios = (process.env.AB_SCENARIOS ?? 'openai->openai,openai->openai stream').split(',');
const dir = mkdtempSync(join(tmpdir(), 'gateway-promotion-'));
const profileDir = process.env.PROFILE_DIR ?? dir;

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  callFrame: CallFrame;
  selfSize: number;
  children: ProfileNode[];
}

/** The few inspector methods used, over the WebSocket the gateway's --inspect opened. */
class Inspector {
  private readonly socket: WebSocket;
  private nextId = 1;
  /** Chunks of the heap snapshot being taken. */
  readonly chunks: string[] = [];
  private readonly waiting = new Map<number, (message: { result?: unknown; error?: { message: string } }) => void>();
  private constructor(socket: WebSocket) {
    this.socket = socket;
    socket.addEventListener('message', (event) => {
      const message = JSON.parse(String(event.data)) as {
        id?: number;
        method?: string;
        params?: { chunk: string };
        result?: unknown;
        error?: { message: string };
      };
      if (message.method === 'HeapProfiler.addHeapSnapshotChunk') this.chunks.push(message.params!.chunk);
      if (message.id !== undefined) this.waiting.get(message.id)?.(message);
    });
  }
  static async open(url: string): Promise<Inspector> {
    const socket = new WebSocket(url);
    await new Promise((resolve, reject) => {
      socket.addEventListener('open', resolve, { once: true });
      socket.addEventListener('error', reject, { once: true });
    });
    return new Inspector(socket);
  }
  post<T>(method: string, params: object = {}): Promise<T> {
    const id = this.nextId++;
    this.socket.send(JSON.stringify({ id, method, params }));
    return new Promise((resolve, reject) =>
      this.waiting.set(id, (message) => {
        this.waiting.delete(id);
        if (message.error !== undefined) reject(new Error(`${method}: ${message.error.message}`));
        else resolve(message.result as T);
      }),
    );
  }
  close(): void {
    this.socket.close();
  }
}

/** The gateway with the inspector on a loopback port; its stdout read for the GC lines and its URL. */
async function spawnInspected(config: string) {
  const args = [
    ...MAIN_THREAD_NODE_FLAGS,
    ...(process.env.PROFILE_NODE_FLAGS?.split(' ').filter(Boolean) ?? []),
    '--inspect=127.0.0.1:0',
    '--trace-gc',
    '--trace-gc-nvp',
    join(tree, 'server/main.ts'),
    '--config',
    config,
  ];
  const child: ChildProcess = spawn(process.execPath, args, { env: { ...process.env, ...GATEWAY_ENV }, stdio: ['ignore', 'pipe', 'pipe'] });
  const gc = new GcTally();
  const exit = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const inspectorUrl = new Promise<string>((resolve) =>
    createInterface({ input: child.stderr! }).on('line', (line) => {
      const url = /Debugger listening on (ws:\S+)/.exec(line)?.[1];
      if (url !== undefined) resolve(url);
      else if (!line.startsWith('For help') && !line.startsWith('Debugger attached')) process.stderr.write(`${line}\n`);
    }),
  );
  const url = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${tree} exited with ${code}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (line.startsWith('[')) return gc.line(line);
      if (line.startsWith('{"') && line.includes('"dataUrl"')) resolve((JSON.parse(line) as { dataUrl: string }).dataUrl);
    });
  });
  const inspector = await Inspector.open(await inspectorUrl);
  return {
    url,
    pid: child.pid!,
    gc,
    inspector,
    stop: async () => {
      inspector.close();
      child.kill('SIGTERM');
      await exit;
    },
  };
}

/** A short name for a frame: the function, and the file under the tree (or Node's module) with its line. */
function site(frame: CallFrame): string {
  const file = frame.url.startsWith('file://') ? frame.url.slice(frame.url.indexOf('/server/') + 1 || frame.url.lastIndexOf('/') + 1) : frame.url;
  return `${frame.functionName || '(anonymous)'} ${file || '(native)'}:${frame.lineNumber + 1}`;
}
const isGateway = (frame: CallFrame) => frame.url.includes('/server/');

/** Self bytes summed by the allocating frame, and by the innermost gateway frame on the stack with that leaf. */
function bySite(root: ProfileNode): { leaf: Map<string, number>; owner: Map<string, number>; total: number } {
  const leaf = new Map<string, number>();
  const owner = new Map<string, number>();
  let total = 0;
  const walk = (node: ProfileNode, gatewayFrame: string | undefined) => {
    if (node.callFrame.functionName === 'promotionProfileChurn') return;
    const here = isGateway(node.callFrame) ? site(node.callFrame) : gatewayFrame;
    if (node.selfSize > 0) {
      const key = site(node.callFrame);
      leaf.set(key, (leaf.get(key) ?? 0) + node.selfSize);
      const via = here === key || here === undefined ? key : `${here}  <-  ${key}`;
      owner.set(via, (owner.get(via) ?? 0) + node.selfSize);
      total += node.selfSize;
    }
    for (const child of node.children) walk(child, here);
  };
  walk(root, undefined);
  return { leaf, owner, total };
}

function print(title: string, sums: Map<string, number>, requests: number): void {
  console.log(`  ${title}`);
  for (const [key, bytes] of [...sums].sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(`    ${(bytes / 1024).toFixed(0).padStart(7)} KB ${((bytes / requests) | 0).toString().padStart(5)} B/req  ${key}`);
}

const mock = await spawnServer(process.execPath, [join(here, 'bench/mock-upstream-server.ts')]);
const config = writeGatewayConfig({ dir, mockUrl: mock.url, workers: 1, governance: false, paced: { chunks: 1, intervalMs: 1 } });
const gateway = await spawnInspected(config);
const { inspector } = gateway;
// Garbage allocated in the gateway until two scavenges have run: what is then still sampled
// survived a scavenge that ran after the load ended, i.e. is no young leftover of the last requests.
// Its own samples (the few arrays a scavenge finds in its ring) are left out of the sums.
const CHURN =
  '(function promotionProfileChurn() { const ring = new Array(64); for (let i = 0; i < 200000; i++) ring[i & 63] = new Array(16); return ring.length; })()';
async function churnTwoScavenges(): Promise<void> {
  const start = gateway.gc.scavenges;
  for (let i = 0; i < 50 && gateway.gc.scavenges < start + 2; i++) {
    await inspector.post('Runtime.evaluate', { expression: CHURN });
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
try {
  console.log(`${tree}, workers 1, ${connections} connections, ${seconds} s of wrk per scenario, sampling every 4 KiB`);
  await inspector.post('HeapProfiler.enable');
  for (const s of scenarios) {
    const [pair = '', word] = s.split(' ');
    const [ingress, egress] = pair.split('->') as [ProtocolId, ProtocolId];
    const request = clientRequest(ingress, gatewayModel(egress), word === 'stream', 'bench');
    await warmUp({ url: gateway.url, request, connections, generator: 'wrk' }, 6000);
    await inspector.post('HeapProfiler.collectGarbage');
    await inspector.post('HeapProfiler.startSampling', {
      samplingInterval: 4096,
      includeObjectsCollectedByMinorGC: false,
      includeObjectsCollectedByMajorGC: true,
    });
    const before = gateway.gc.snapshot();
    const load = runLoad({ url: gateway.url, request, connections, seconds, pid: gateway.pid, generator: 'wrk' });
    if (process.env.PROFILE_SNAPSHOT === '1') {
      await new Promise((resolve) => setTimeout(resolve, (seconds * 1000) / 2));
      inspector.chunks.length = 0;
      await inspector.post('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
      writeFileSync(join(profileDir, `${s.replace(/\W+/g, '-')}.heapsnapshot`), inspector.chunks.join(''));
      inspector.chunks.length = 0;
    }
    const sample = await load;
    await new Promise((resolve) => setTimeout(resolve, 100));
    const scavenges = gateway.gc.scavenges - before.scavenges;
    const promoted = gateway.gc.promoted - before.promoted;
    const markCompacts = gateway.gc.markCompacts - before.markCompacts;
    await churnTwoScavenges();
    const { profile } = await inspector.post<{ profile: { head: ProfileNode } }>('HeapProfiler.getSamplingProfile');
    await inspector.post('HeapProfiler.stopSampling');
    const file = join(profileDir, `${s.replace(/\W+/g, '-')}.heapprofile`);
    writeFileSync(file, JSON.stringify(profile));
    const { leaf, owner, total } = bySite(profile.head);
    console.log(
      `${s}: ${sample.requests} requests, ${sample.cpuMicrosPerRequest?.toFixed(0)} µs/req, p99 ${sample.p99Ms.toFixed(1)} ms; ` +
        `${scavenges} scavenges, ${(promoted / Math.max(1, scavenges) / 1024).toFixed(0)} KB promoted/scavenge (${(promoted / sample.requests) | 0} B/req), ${markCompacts} mark-compacts; ` +
        `sampled survivors ${(total / 1024).toFixed(0)} KB (${(total / sample.requests) | 0} B/req); ${file}`,
    );
    print('by allocating frame', leaf, sample.requests);
    print('by innermost gateway frame  <-  allocating frame', owner, sample.requests);
  }
} finally {
  await Promise.all([gateway.stop(), mock.stop()]);
}
