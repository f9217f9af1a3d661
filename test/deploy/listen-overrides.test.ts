// --listen / --admin-listen and GATEWAY_CONFIG / GATEWAY_LISTEN / GATEWAY_ADMIN_LISTEN through the
// real CLI: a flag wins over its variable, both over the file; an override is checked like the
// file's address (its shape, and the admin plane's loopback rule).
import { afterEach, describe, expect, it } from 'vitest';
import { onNewConnection } from '../support/fresh-connection.ts';
import { freePort } from '../support/free-port.ts';
import { runGatewayToExit } from '../support/gateway-exit.ts';
import { startGatewayProcess, type GatewayProcess } from '../support/gateway-process.ts';

const running: GatewayProcess[] = [];
afterEach(async () => {
  for (const g of running.splice(0)) {
    g.child.kill('SIGKILL');
    await g.exited();
  }
});

const CONFIG = (listen: string, admin: string) =>
  `listen: ${listen}\nadmin_listen: ${admin}\nworkers: 1\nlog_level: info\nmodels: { demo: { provider: demo, model: demo-echo } }\n`;

async function start(configYaml: string, options: Parameters<typeof startGatewayProcess>[1]): Promise<GatewayProcess> {
  const g = await startGatewayProcess(configYaml, options);
  running.push(g);
  return g;
}

const port = (url: string) => Number(new URL(url).port);

describe('listen overrides', () => {
  it('--listen wins over GATEWAY_LISTEN, which wins over the file; GATEWAY_ADMIN_LISTEN over admin_listen', async () => {
    const [fileData, envData, flagData, fileAdmin, envAdmin] = await Promise.all([freePort(), freePort(), freePort(), freePort(), freePort()]);
    const g = await start(CONFIG(`127.0.0.1:${fileData}`, `127.0.0.1:${fileAdmin}`), {
      args: ['--listen', `127.0.0.1:${flagData}`],
      env: { GATEWAY_LISTEN: `127.0.0.1:${envData}`, GATEWAY_ADMIN_LISTEN: `127.0.0.1:${envAdmin}` },
    });
    expect(port(g.dataUrl)).toBe(flagData);
    expect(port(g.adminUrl)).toBe(envAdmin);
    expect((await onNewConnection(`http://127.0.0.1:${flagData}/healthz`)).status).toBe(200);
    await expect(onNewConnection(`http://127.0.0.1:${envData}/healthz`)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    await expect(onNewConnection(`http://127.0.0.1:${fileData}/healthz`)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('GATEWAY_LISTEN and --admin-listen apply when they are all there is', async () => {
    const [envData, flagAdmin] = await Promise.all([freePort(), freePort()]);
    const g = await start(CONFIG('127.0.0.1:0', '127.0.0.1:0'), {
      args: ['--admin-listen', `127.0.0.1:${flagAdmin}`],
      env: { GATEWAY_LISTEN: `127.0.0.1:${envData}`, GATEWAY_ADMIN_LISTEN: '127.0.0.1:1' },
    });
    expect(port(g.dataUrl)).toBe(envData);
    expect(port(g.adminUrl)).toBe(flagAdmin);
  });

  it('reads the configuration GATEWAY_CONFIG names when there is no --config', async () => {
    const g = await start(CONFIG('127.0.0.1:0', '127.0.0.1:0').replace('demo: {', 'from-env: {'), { configFromEnv: true });
    const models = await onNewConnection(`${g.dataUrl}/v1/models`);
    expect(JSON.parse(models.body)).toMatchObject({ data: [{ id: 'from-env' }] });
  });

  it('--config wins over GATEWAY_CONFIG', async () => {
    const served = await runGatewayToExit(undefined, { args: ['--config', '/nonexistent/by-flag.yaml'], env: { GATEWAY_CONFIG: '/nonexistent/by-env.yaml' } });
    expect(served.code).toBe(2);
    expect(served.stderr).toBe('gateway: invalid configuration\n/nonexistent/by-flag.yaml: cannot read the configuration (ENOENT)\n');
    const fromEnv = await runGatewayToExit(undefined, { env: { GATEWAY_CONFIG: '/nonexistent/by-env.yaml' } });
    expect(fromEnv.stderr).toBe('gateway: invalid configuration\n/nonexistent/by-env.yaml: cannot read the configuration (ENOENT)\n');
  });

  it('refuses an address that is not host:port, naming the flag or variable it came from', async () => {
    const config = CONFIG('127.0.0.1:0', '127.0.0.1:0');
    const flag = await runGatewayToExit(config, { args: ['--listen', 'localhost'] });
    expect(flag.code).toBe(2);
    expect(flag.stderr).toBe('gateway: invalid configuration\n--listen: "localhost" is not host:port (e.g. 0.0.0.0:8080, 127.0.0.1:8081, [::1]:8080, :8080)\n');
    const env = await runGatewayToExit(config, { env: { GATEWAY_ADMIN_LISTEN: '127.0.0.1:70000' } });
    expect(env.code).toBe(2);
    expect(env.stderr).toBe('gateway: invalid configuration\nGATEWAY_ADMIN_LISTEN: port 70000 is beyond 65535\n');
  });

  it('holds an admin address from the environment to the loopback rule', async () => {
    const run = await runGatewayToExit(CONFIG('127.0.0.1:0', '127.0.0.1:0'), { env: { GATEWAY_ADMIN_LISTEN: '0.0.0.0:0', GATEWAY_ADMIN_TOKEN: '' } });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('the admin plane would listen on 0.0.0.0, beyond loopback, with no admin token');
  });
});
