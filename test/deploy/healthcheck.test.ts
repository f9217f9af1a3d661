// `gateway --healthcheck <url>`, the container's HEALTHCHECK (there is no curl in the image): exit 0
// only for a 2xx within the time limit, 1 with the reason on stderr otherwise.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runToExit, type Exit } from '../support/run-to-exit.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const NODE = join(ROOT, 'node_modules/.bin/node');

let server: Server;
let base: string;

beforeAll(async () => {
  server = createServer((request, response) => {
    if (request.url === '/healthz') return void response.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
    if (request.url === '/hang') return; // never answers
    response.writeHead(503).end('draining');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => {
  server.closeAllConnections();
  server.close();
});

function healthcheck(url: string): Promise<Exit> {
  return runToExit(NODE, [join(ROOT, 'server/main.ts'), '--healthcheck', url], { timeoutMs: 20_000 });
}

describe('gateway --healthcheck', () => {
  it('exits 0, silently, when the URL answers 2xx', async () => {
    expect(await healthcheck(`${base}/healthz`)).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  it('exits 1 with the status when the URL answers otherwise', async () => {
    expect(await healthcheck(`${base}/readyz`)).toEqual({ code: 1, stdout: '', stderr: `gateway: health check ${base}/readyz: HTTP 503\n` });
  });

  it('exits 1 with the reason when nothing listens, or nothing answers within 3 s', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    expect(await healthcheck(`http://127.0.0.1:${port}/healthz`)).toMatchObject({
      code: 1,
      stderr: `gateway: health check http://127.0.0.1:${port}/healthz: ECONNREFUSED\n`,
    });

    const hung = await healthcheck(`${base}/hang`);
    expect(hung.code).toBe(1);
    expect(hung.stderr).toMatch(/health check .*\/hang: .*(timeout|aborted)/i);
  }, 30_000);
});
