// Several real gateway processes (server/main.ts) on one PostgreSQL database, behind one mock
// upstream: a fleet as a platform team runs it, minus the load balancer (tests pick the node).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { startGatewayProcess, type GatewayProcess } from './gateway-process.ts';
import { startMockUpstream, type MockUpstream } from './mock-upstream.ts';

export const FLEET_UPSTREAM_KEY = 'sk-fleet-upstream-secret';
export const FLEET_GOVERNANCE_SECRET = 'fleet-governance-secret';

/** 1 cent per million tokens: 100 µ¢ a token, in and out. */
export const PRICE_MICROCENTS_PER_TOKEN = 100n;

export interface Fleet {
  readonly upstream: MockUpstream;
  readonly nodes: GatewayProcess[];
  /** An OpenAI client for node i with this key (no retries: every answer is seen). */
  client(node: number, secret: string): OpenAI;
  /** An admin call on node i (POST or PATCH with a body, DELETE or GET). */
  admin(node: number, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown): Promise<{ status: number; body: any }>;
  /** Starts one more node on the same database. */
  addNode(): Promise<GatewayProcess>;
  close(): Promise<void>;
}

export async function startFleet(databaseUrl: string, options: { nodes: number; leaseSeconds?: number; extraYaml?: string }): Promise<Fleet> {
  const upstream = await startMockUpstream();
  const catalogDir = mkdtempSync(join(tmpdir(), 'gateway-fleet-'));
  const catalog = join(catalogDir, 'providers.yaml');
  writeFileSync(catalog, `openai: { base_url: ${upstream.url}/v1 }\n`);
  const config = `listen: 127.0.0.1:0
admin_listen: 127.0.0.1:0
catalog: ${catalog}
log_level: info
workers: 1
providers:
  openai: { api_key: { env: FLEET_UPSTREAM_KEY } }
models:
  priced: { provider: openai, model: priced-upstream, price: { input: 1, output: 1 } }
governance: on
database_url: { env: GATEWAY_DATABASE_URL }
governance_secret: { env: FLEET_GOVERNANCE_SECRET }
reservation_lease_seconds: ${options.leaseSeconds ?? 30}
${options.extraYaml ?? ''}`;
  const env = { GATEWAY_DATABASE_URL: databaseUrl, FLEET_UPSTREAM_KEY, FLEET_GOVERNANCE_SECRET };
  const start = () => startGatewayProcess(config, { env });
  const nodes = await Promise.all(Array.from({ length: options.nodes }, start));
  return {
    upstream,
    nodes,
    client: (node, secret) => new OpenAI({ apiKey: secret, baseURL: `${nodes[node]!.dataUrl}/v1`, maxRetries: 0, timeout: 30_000 }),
    async admin(node, method, path, body) {
      const res = await fetch(`${nodes[node]!.adminUrl}/api/v1/admin${path}`, {
        method,
        ...(body !== undefined && { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
      });
      return { status: res.status, body: await res.json() };
    },
    async addNode() {
      const node = await start();
      nodes.push(node);
      return node;
    },
    async close() {
      for (const node of nodes) if (node.child.exitCode === null && node.child.signalCode === null) node.child.kill('SIGTERM');
      await Promise.all(nodes.map((node) => node.exited()));
      await upstream.close();
    },
  };
}
