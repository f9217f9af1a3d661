// `make profile`: where a gateway's CPU goes under load. Starts the mock upstream and a gateway
// with `workers: 1` under `node --cpu-prof` (one thread, so one profile holds every request),
// loads one scenario with autocannon, stops the gateway (which writes the profile) and prints busy
// time by place. The .cpuprofile is kept in bench/results/ for a flame graph (Chrome DevTools'
// Performance panel or speedscope open it).
//   PROFILE_SCENARIO   openai->openai (default), openai->anthropic, anthropic->openai, ... ; add
//                      " stream" for a streaming request, or " embeddings" for the embeddings
//                      section's request (openai->openai: bytes forwarded; openai->cohere: translated)
//   PROFILE_SECONDS    load duration [10]; PROFILE_CONNECTIONS [32]
import { mkdirSync, mkdtempSync, readdirSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkoutGateway } from './fleet.ts';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import type { ProtocolId } from '../server/ir/index.ts';
import { clientRequest } from './client-requests.ts';
import { summariseProfile } from './cpu-profile-summary.ts';
import { embeddingsRequest } from './embeddings.ts';
import { embeddingGatewayModel, GATEWAY_ENV, gatewayModel, writeGatewayConfig } from './gateway-config.ts';
import { spawnServer } from './spawn-server.ts';

const root = fileURLToPath(new URL('..', import.meta.url)).replace(/\/$/, '');
const scenario = process.env.PROFILE_SCENARIO ?? 'openai->openai';
const seconds = Number(process.env.PROFILE_SECONDS ?? 10);
const connections = Number(process.env.PROFILE_CONNECTIONS ?? 32);
const [pair = '', streamWord] = scenario.split(' ');
const [ingress, egress] = pair.split('->') as [ProtocolId, ProtocolId];

const dir = mkdtempSync(join(tmpdir(), 'gateway-profile-'));
const mock = await spawnServer(process.execPath, [join(root, 'bench/mock-upstream-server.ts')]);
const config = writeGatewayConfig({ dir, mockUrl: mock.url, workers: 1, governance: false, paced: { chunks: 1, intervalMs: 1 } });
const [node, args] = checkoutGateway(root, ['--config', config]);
const gateway = await spawnServer(node, ['--cpu-prof', `--cpu-prof-dir=${dir}`, ...args], GATEWAY_ENV);
try {
  const request =
    streamWord === 'embeddings'
      ? embeddingsRequest({ model: embeddingGatewayModel(egress as 'openai' | 'cohere'), encoding: egress === 'openai' ? 'float' : 'base64' }, 'bench')
      : clientRequest(ingress, gatewayModel(egress), streamWord === 'stream', 'bench');
  const options = { url: gateway.url + request.path, method: 'POST' as const, body: request.body, headers: { ...request.headers }, connections };
  await autocannon({ ...options, amount: 2000 }); // warm-up: JIT and connection pools
  const result = await autocannon({ ...options, duration: seconds });
  console.log(
    `${scenario}: ${Math.round(result.requests.average)} req/s over ${seconds} s at ${connections} connections, ${result.errors + result.non2xx} errors`,
  );
} finally {
  await gateway.stop();
  await mock.stop();
}
const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'));
if (file === undefined) throw new Error(`the gateway wrote no profile into ${dir}`);
const out = join(root, 'bench/results');
mkdirSync(out, { recursive: true });
const kept = join(out, `profile-${scenario.replace(/[^a-z]+/g, '-')}.cpuprofile`);
renameSync(join(dir, file), kept);
console.log(`busy CPU by place (start-up included; idle excluded), profile in ${kept}:`);
for (const row of summariseProfile(kept, root).slice(0, 25)) console.log(`${row.percent.toFixed(1).padStart(6)} %  ${row.where}`);
