// A/B of two gateway trees in one run, beside the floor: one mock upstream, the minimal proxy and
// two gateways (A and B, each `node <its flags> <tree>/server/main.ts` on the same config), warmed up, then
// interleaved repeats (the order reversed every other repeat) with CPU µs per request of each
// process from /proc. What a change to the hot path buys, measured against the code before it in
// the same run (on a shared machine the floor's and the gateways' µs move together).
//   AB_A          the tree before the change, e.g. a `git archive` of the last commit with node_modules linked [required]
//   AB_B          the tree with the change [this checkout]
//   AB_WORKERS    1 (default) or auto
//   AB_SCENARIOS  comma-separated: openai->openai, anthropic->anthropic, openai->anthropic, ...; add
//                 " stream" for a streaming request, or " embeddings" (openai->openai only)
//   AB_SECONDS [3], AB_REPEATS [3], AB_CONNECTIONS [32]
//   AB_A_ENV, AB_B_ENV  environment added to one side's gateway, e.g. AB_B_ENV='MALLOC_ARENA_MAX=4'
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ProtocolId } from '../server/ir/index.ts';
import { clientRequest } from './client-requests.ts';
import { embeddingsRequest } from './embeddings.ts';
import { EMBEDDING_UPSTREAM_MODEL, embeddingGatewayModel, GATEWAY_ENV, gatewayModel, UPSTREAM_MODEL, writeGatewayConfig } from './gateway-config.ts';
import { runLoad, warmUp } from './load-runner.ts';
import { spawnServer } from './spawn-server.ts';
import { treeGateway } from './tree-gateway.ts';
import { median } from './stats.ts';

const here = fileURLToPath(new URL('..', import.meta.url)).replace(/\/$/, '');
const A = process.env.AB_A;
if (A === undefined) throw new Error('AB_A: the gateway tree to compare against');
const B = process.env.AB_B ?? here;
const workers = process.env.AB_WORKERS === 'auto' ? 'auto' : Number(process.env.AB_WORKERS ?? 1);
const seconds = Number(process.env.AB_SECONDS ?? 3);
const repeats = Number(process.env.AB_REPEATS ?? 3);
const connections = Number(process.env.AB_CONNECTIONS ?? 32);
const scenarios = (process.env.AB_SCENARIOS ?? 'openai->openai,anthropic->anthropic,openai->openai stream,openai->anthropic,openai->openai embeddings').split(
  ',',
);

const dir = mkdtempSync(join(tmpdir(), 'gateway-ab-'));
const mock = await spawnServer(process.execPath, [join(here, 'bench/mock-upstream-server.ts')]);
const proxy = await spawnServer(process.execPath, [join(here, 'bench/minimal-proxy.ts')], { UPSTREAM: mock.url });
const config = writeGatewayConfig({ dir, mockUrl: mock.url, workers, governance: false, paced: { chunks: 1, intervalMs: 1 } });
// Each tree started as `make run` starts it (tree-gateway.ts), with the gateway's environment and
// that side's additions.
const sideEnv = (raw: string | undefined) =>
  Object.fromEntries(
    (raw ?? '')
      .split(' ')
      .filter((kv) => kv.includes('='))
      .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
  );
const start = async (tree: string, env: string | undefined) =>
  spawnServer(...(await treeGateway(tree, ['--config', config])), { ...GATEWAY_ENV, ...sideEnv(env) });
const gatewayA = await start(A, process.env.AB_A_ENV);
const gatewayB = await start(B, process.env.AB_B_ENV);
try {
  console.log(`A ${A}, B ${B}, workers ${workers}, ${connections} connections, ${repeats} x ${seconds} s; CPU µs per request (median), x the floor`);
  for (const s of scenarios) {
    const [pair = '', word] = s.split(' ');
    const [ingress, egress] = pair.split('->') as [ProtocolId, ProtocolId];
    const embeddings = word === 'embeddings';
    const stream = word === 'stream';
    const gatewayRequest = embeddings
      ? embeddingsRequest({ model: embeddingGatewayModel('openai'), encoding: 'float' }, 'bench')
      : clientRequest(ingress, gatewayModel(egress), stream, 'bench');
    // The floor is asked what the mock answers the gateway's lane: the same bytes come back.
    const proxyRequest = embeddings
      ? embeddingsRequest({ model: EMBEDDING_UPSTREAM_MODEL, encoding: 'float' }, 'bench')
      : clientRequest('openai', UPSTREAM_MODEL, stream, 'bench');
    const targets = [
      { name: 'floor', url: proxy.url, pid: proxy.pid, request: proxyRequest },
      { name: 'A', url: gatewayA.url, pid: gatewayA.pid, request: gatewayRequest },
      { name: 'B', url: gatewayB.url, pid: gatewayB.pid, request: gatewayRequest },
    ];
    for (const t of targets) await warmUp({ url: t.url, request: t.request, connections, generator: 'autocannon' }, 2000);
    const cpu = new Map<string, number[]>(targets.map((t) => [t.name, []]));
    let errors = 0;
    for (let r = 0; r < repeats; r++) {
      for (const t of r % 2 === 0 ? targets : [...targets].reverse()) {
        const sample = await runLoad({ url: t.url, request: t.request, connections, seconds, pid: t.pid, generator: 'autocannon' });
        cpu.get(t.name)!.push(sample.cpuMicrosPerRequest ?? 0);
        errors += sample.errors;
      }
    }
    const m = (name: string) => median(cpu.get(name)!);
    const x = (name: string) => (m(name) / m('floor')).toFixed(2);
    console.log(
      `${s.padEnd(30)} floor ${m('floor').toFixed(0).padStart(5)}  A ${m('A').toFixed(0).padStart(5)} (${x('A')}x)  B ${m('B').toFixed(0).padStart(5)} (${x('B')}x)  B/A ${(m('B') / m('A')).toFixed(3)}  errors ${errors}`,
    );
  }
} finally {
  await Promise.all([gatewayA.stop(), gatewayB.stop(), proxy.stop(), mock.stop()]);
}
