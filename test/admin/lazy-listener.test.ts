// The admin plane is built on its first request (server/app/lazy-listener.ts): once, however many
// requests arrive while it is being built, and again after a build that failed.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { lazyListener } from '../../server/app/lazy-listener.ts';

type Listener = (req: IncomingMessage, res: ServerResponse) => void;

const servers: ReturnType<typeof createServer>[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

async function serve(listener: Listener): Promise<string> {
  const server = createServer(listener);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const echo: Listener = (req, res) => {
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (chunk: string) => (body += chunk));
  req.on('end', () => res.end(`${req.method} ${req.url} ${body}`));
};

describe('lazyListener', () => {
  it('builds nothing before the first request, then once for every request', async () => {
    let builds = 0;
    const url = await serve(
      lazyListener(
        async () => {
          builds += 1;
          await new Promise((resolve) => setTimeout(resolve, 50));
          return echo;
        },
        () => {},
      ),
    );
    expect(builds).toBe(0);
    // Requests that arrive during the build wait for it, their bodies intact.
    const answers = await Promise.all([1, 2, 3].map((n) => fetch(`${url}/x${n}`, { method: 'POST', body: `body ${n}` }).then((r) => r.text())));
    expect(answers).toEqual(['POST /x1 body 1', 'POST /x2 body 2', 'POST /x3 body 3']);
    expect(await (await fetch(`${url}/y`)).text()).toBe('GET /y ');
    expect(builds).toBe(1);
  });

  it('answers 500 and logs when the build fails, and builds again on the next request', async () => {
    const errors: unknown[] = [];
    let builds = 0;
    const url = await serve(
      lazyListener(
        async () => {
          builds += 1;
          if (builds === 1) throw new Error('no spec');
          return echo;
        },
        (error) => errors.push(error),
      ),
    );
    const failed = await fetch(`${url}/a`);
    expect(failed.status).toBe(500);
    expect(await failed.json()).toEqual({ error: { code: 'internal_error', message: 'the admin plane could not be started: see the gateway log' } });
    expect(errors).toEqual([new Error('no spec')]);
    expect(await (await fetch(`${url}/b`)).text()).toBe('GET /b ');
    expect(builds).toBe(2);
  });
});
