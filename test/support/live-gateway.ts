// Runs a command against a live gateway: `node test/support/live-gateway.ts -- pytest -q`.
// Starts a real gateway (demo upstream, a fresh SQLite store, a team `research`, an admin token, a gate hook `policy`
// and a webhook hook `audit` answered by a receiver in this process) on ephemeral loopback ports,
// gives the command GATEWAY_ENDPOINT (admin plane), GATEWAY_ADMIN_TOKEN and GATEWAY_DATA_URL, and
// exits with the command's status. Used by the three client suites.
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGateway } from '../../server/app/start-gateway.ts';
import { loadConfigFile } from '../../server/config/load-config.ts';
import { createLogger } from '../../server/shared/logger.ts';

const separator = process.argv.indexOf('--');
const command = separator === -1 ? [] : process.argv.slice(separator + 1);
if (command.length === 0) {
  console.error('usage: node test/support/live-gateway.ts -- <command> [args...]');
  process.exit(2);
}

const token = 'live-gateway-admin-token';
// Allows every request and takes every event.
const hookReceiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"allow":true}');
  });
});
await new Promise<void>((resolve) => hookReceiver.listen(0, '127.0.0.1', resolve));
const hooksUrl = `http://127.0.0.1:${(hookReceiver.address() as AddressInfo).port}`;
const dir = mkdtempSync(join(tmpdir(), 'gateway-live-'));
writeFileSync(
  join(dir, 'config.yaml'),
  [
    'listen: 127.0.0.1:0',
    'admin_listen: 127.0.0.1:0',
    'log_level: silent',
    'models: { demo: { provider: demo, model: demo-echo }, demo-claude: { provider: demo-anthropic, model: demo-echo } }',
    'pools: { demo-pool: { members: [ { model: demo, weight: 2 }, { model: demo-claude } ] } }',
    'db_path: ./gateway.db',
    'governance: off',
    // A team for the key and team operations (its child_default is what a self-serve key of it would get).
    'teams: { research: { child_default: { budget_cents: 500, rpm: 30 } } }',
    'hooks:',
    `  - { name: policy, kind: gate, url: "${hooksUrl}/gate?token=live-hook-secret", on_error: allow, timeout_ms: 2000 }`,
    `  - { name: audit, kind: webhook, url: "${hooksUrl}/events", events: [request.completed, request.failed] }`,
  ].join('\n') + '\n',
);
// Reloads and validations (the config operations) load the file as the start did.
const loadOptions = { env: { GATEWAY_ADMIN_TOKEN: token } };
const gateway = await startGateway(loadConfigFile(join(dir, 'config.yaml'), loadOptions), { log: createLogger('silent'), loadOptions });
const child = spawn(command[0]!, command.slice(1), {
  stdio: 'inherit',
  env: { ...process.env, GATEWAY_ENDPOINT: gateway.adminUrl, GATEWAY_ADMIN_TOKEN: token, GATEWAY_DATA_URL: gateway.dataUrl },
});
const code = await new Promise<number>((resolve) => {
  child.on('exit', (status, signal) => resolve(status ?? (signal === null ? 1 : 128)));
  child.on('error', (error) => {
    console.error(`live-gateway: cannot run ${command[0]}: ${error.message}`);
    resolve(127);
  });
});
await gateway.close();
hookReceiver.close();
process.exit(code);
