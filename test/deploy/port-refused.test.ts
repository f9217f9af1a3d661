// The data-plane port is shared only among one gateway's own workers (SO_REUSEPORT): a second
// gateway on the same `listen`, or a start while any other process holds the port (with or without
// SO_REUSEPORT), is refused with one sentence and a non-zero exit; so is an admin port clash.
import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { StartError } from '../../server/app/start-error.ts';
import { startGateway, type RunningGateway } from '../../server/app/start-gateway.ts';
import { loadConfigText } from '../../server/config/load-config.ts';
import { createLogger } from '../../server/shared/logger.ts';
import { onNewConnection } from '../support/fresh-connection.ts';
import { freePort } from '../support/free-port.ts';
import { runGatewayToExit } from '../support/gateway-exit.ts';
import { startGatewayProcess, type GatewayProcess } from '../support/gateway-process.ts';

const cleanups: (() => Promise<unknown> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function holdPort(port: number, reusePort: boolean): Promise<Server> {
  const server = createServer();
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port, reusePort }, () => resolve(server));
  }).then(() => {
    cleanups.push(() => new Promise<void>((r) => server.close(() => r())));
    return server;
  });
}

const yaml = (listen: string, admin = '127.0.0.1:0') =>
  `listen: ${listen}\nadmin_listen: ${admin}\nworkers: 2\nlog_level: info\nmodels: { demo: { provider: demo, model: demo-echo } }\n`;

async function startProcess(configYaml: string): Promise<GatewayProcess> {
  const g = await startGatewayProcess(configYaml);
  cleanups.push(async () => {
    g.child.kill('SIGKILL');
    await g.exited();
  });
  return g;
}

describe('a data-plane port held by another process', () => {
  it('refuses a second gateway on the same listen address, in one sentence', async () => {
    const port = await freePort();
    const first = await startProcess(yaml(`127.0.0.1:${port}`));
    const second = await runGatewayToExit(yaml(`127.0.0.1:${port}`));
    expect(second.code).toBe(1);
    expect(second.stderr).toBe(`gateway: listen 127.0.0.1:${port} is already in use by another process: stop it or choose another address\n`);
    // The first one still has the port to itself and answers.
    const res = await onNewConnection(`${first.dataUrl}/healthz`);
    expect(res.status).toBe(200);
  });

  for (const reusePort of [false, true]) {
    it(`refuses to start beside a plain server holding the port ${reusePort ? 'with' : 'without'} SO_REUSEPORT`, async () => {
      const port = await freePort();
      await holdPort(port, reusePort);
      const exit = await runGatewayToExit(yaml(`127.0.0.1:${port}`));
      expect(exit.code).toBe(1);
      expect(exit.stderr).toBe(`gateway: listen 127.0.0.1:${port} is already in use by another process: stop it or choose another address\n`);
    });
  }

  it('refuses an admin port clash in one sentence, not a stack trace', async () => {
    const port = await freePort();
    await holdPort(port, false);
    const exit = await runGatewayToExit(yaml('127.0.0.1:0', `127.0.0.1:${port}`));
    expect(exit.code).toBe(1);
    expect(exit.stderr).toBe(`gateway: admin_listen 127.0.0.1:${port} is already in use by another process: stop it or choose another address\n`);
  });
});

describe('one gateway with two workers on a fixed port', () => {
  it('serves from both workers, and a second gateway in the same process is refused', async () => {
    const port = await freePort();
    const config = loadConfigText(yaml(`127.0.0.1:${port}`), '/virtual/config.yaml', '/virtual');
    const gateway: RunningGateway = await startGateway(config, { log: createLogger('silent') });
    cleanups.push(() => gateway.close(0));
    const body = JSON.stringify({ model: 'demo', messages: [{ role: 'user', content: 'x' }] });
    const results = await Promise.all(Array.from({ length: 40 }, () => onNewConnection(`${gateway.dataUrl}/v1/chat/completions`, { method: 'POST', body })));
    expect(results.map((r) => r.status)).toEqual(results.map(() => 200));
    const served = await gateway.workerTelemetry();
    expect(served.map((w) => w.worker)).toEqual([1, 2]);
    expect(served.every((w) => w.requests > 0)).toBe(true);
    await expect(startGateway(config, { log: createLogger('silent') })).rejects.toThrow(StartError);
  });
});
