// The connection guard (server/app/connection-guard.ts) keeps a busy connection's response on its
// socket. Two requests pipelined on one connection, both held: the second takes the connection
// over while the first is answered, so the first's end must leave it busy; a drain begun then
// waits for the second answer (sent with `connection: close`) instead of closing the connection as
// idle, and cuts nothing. A real node:http server on loopback.
import { once } from 'node:events';
import { createServer, type ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ConnectionGuard } from '../../server/app/connection-guard.ts';

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('ConnectionGuard with pipelined requests', () => {
  it('keeps the connection busy until the last pipelined answer ends; a drain then waits for it', async () => {
    const guard = new ConnectionGuard({ maxConnections: Number.POSITIVE_INFINITY });
    const held: ServerResponse[] = [];
    const server = createServer(guard.listener((_req, res) => held.push(res)));
    guard.watch(server);
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as { port: number };
    const client = connect(port, '127.0.0.1');
    await once(client, 'connect');
    let received = '';
    client.setEncoding('latin1');
    client.on('data', (text: string) => (received += text));
    const closed = once(client, 'close');
    client.write('GET /first HTTP/1.1\r\nhost: x\r\n\r\nGET /second HTTP/1.1\r\nhost: x\r\n\r\n');
    while (held.length < 2) await tick(5);
    expect(guard.open).toBe(1);

    held[0]!.end('first answer');
    while (!received.includes('first answer')) await tick(5);
    await tick(20); // the first response's 'close'
    expect(guard.open).toBe(1);

    const drained = guard.drain(server, 5000);
    await tick(50);
    expect(client.destroyed).toBe(false); // still busy with the second request, not closed as idle
    held[1]!.end('second answer');
    expect(await drained).toEqual({ cut: 0 });
    await closed;
    expect(received).toContain('second answer');
    expect(received.split('\r\n\r\n')[1]).toMatch(/^first answer/);
    expect(received.slice(received.indexOf('first answer'))).toMatch(/connection: close/i);
  });
});
