// The gateway under fuzz: a real `node server/main.ts` process (so a crash is an exit, not a test
// runner's problem), two data-plane workers, governance on with a budgeted virtual key, one model
// per egress protocol (test/support/six-lane-gateway.ts) and a pool mixing three protocols, all in front of the six-protocol mock;
// a gate hook that gets every request body and a webhook, both answered by an endpoint that allows.
// Its error-level log lines are kept: an unexpected failure or a worker that died shows there.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { writeSixLaneConfig } from '../support/six-lane-gateway.ts';
import { laneModel, MIXED_POOL } from './fuzz-cases.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ADMIN_TOKEN = 'fuzz-admin-token';
export const FUZZ_UPSTREAM_KEY = 'sk-fuzz-upstream-secret';

export interface FuzzGateway {
  readonly url: string;
  /** A virtual key with a large budget: what well-behaved cases send. */
  readonly key: string;
  /** Log lines at error level or above, as JSON text. */
  readonly errorLines: string[];
  /** The exit, when the process is gone (it never should be before close()). */
  exited(): { code: number | null; signal: NodeJS.Signals | null } | undefined;
  close(): Promise<void>;
}

/** The hooks' endpoint: reads each call whole and allows (a gate) or accepts (a webhook) it. */
async function startHookEndpoint(): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"allow":true}'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

function writeConfig(dir: string, upstreamUrl: string, hooksUrl: string): string {
  return writeSixLaneConfig(dir, {
    upstreamUrl,
    logLevel: 'info',
    keyEnv: 'FUZZ_UPSTREAM_KEY',
    laneExtras: (p) => `price: { input: 1, output: 2 }${p === 'anthropic' ? ', max_tokens: 1024' : ''}`,
    extraYaml: [
      'workers: 2',
      'db_path: ./gateway.db',
      'governance: on',
      'limits: { max_request_bytes: 4194304 }',
      'pools:',
      `  ${MIXED_POOL}: { members: [ { model: ${laneModel('openai')} }, { model: ${laneModel('anthropic')} }, { model: ${laneModel('gemini')} } ], max_attempts: 3 }`,
      'hooks:',
      `  - { name: fuzz-gate, kind: gate, url: "${hooksUrl}/gate", on_error: deny, timeout_ms: 10000, include_content: true }`,
      `  - { name: fuzz-audit, kind: webhook, url: "${hooksUrl}/events", events: [request.completed, request.failed] }`,
    ],
  });
}

async function createKey(adminUrl: string): Promise<string> {
  const res = await fetch(`${adminUrl}/api/v1/admin/keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-admin-token': ADMIN_TOKEN },
    body: JSON.stringify({ name: 'fuzz', budget_cents: 100_000_000 }),
  });
  if (res.status !== 201) throw new Error(`creating the fuzz key: HTTP ${res.status} ${await res.text()}`);
  return ((await res.json()) as { secret: string }).secret;
}

export async function startFuzzGateway(upstreamUrl: string): Promise<FuzzGateway> {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-fuzz-'));
  const hooks = await startHookEndpoint();
  const config = writeConfig(dir, upstreamUrl, hooks.url);
  const child: ChildProcess = spawn(process.execPath, [join(ROOT, 'server/main.ts'), '--config', config], {
    env: {
      ...process.env,
      FUZZ_UPSTREAM_KEY,
      GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN,
      AWS_ACCESS_KEY_ID: 'AKIDFUZZ',
      AWS_SECRET_ACCESS_KEY: 'fuzz-aws-secret',
      AWS_REGION: 'us-east-1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const errorLines: string[] = [];
  let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  const exitPromise = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      exit = { code, signal };
      resolve();
    }),
  );
  createInterface({ input: child.stderr! }).on('line', (line) => errorLines.length < 200 && errorLines.push(`stderr: ${line}`));
  const started = await new Promise<Record<string, unknown>>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the fuzz gateway did not start within 30 s')), 30_000);
    void exitPromise.then(() => reject(new Error(`the fuzz gateway exited at start: ${JSON.stringify(exit)} ${errorLines.join('\n')}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      let parsed: Record<string, unknown>;
      try {
        parsed = JSON.parse(line) as Record<string, unknown>;
      } catch {
        return;
      }
      if (typeof parsed.dataUrl === 'string') {
        clearTimeout(timer);
        resolve(parsed);
      } else if (typeof parsed.level === 'number' && parsed.level >= 50 && errorLines.length < 200) {
        errorLines.push(line);
      }
    });
  });
  const key = await createKey(String(started.adminUrl));
  return {
    url: String(started.dataUrl),
    key,
    errorLines,
    exited: () => exit,
    close: async () => {
      if (exit === undefined) {
        child.kill('SIGTERM');
        const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        await exitPromise;
        clearTimeout(killer);
      }
      rmSync(dir, { recursive: true, force: true });
      hooks.server.closeAllConnections();
      await new Promise<void>((resolve) => hooks.server.close(() => resolve()));
    },
  };
}
