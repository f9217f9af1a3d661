// SIGHUP re-reads the data-plane `tls:` and `admin_tls:` files (certificate rotation) in the real
// process with two workers: new connections get the new certificate from every worker and from
// the admin plane, a request in flight across the signal completes, and a set that does not load
// is refused whole (the old certificate keeps serving, one log line says why, without PEM text).
import OpenAI from 'openai';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type TLSSocket } from 'node:tls';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, describe, expect, it } from 'vitest';
import { startGatewayProcess, type GatewayProcess } from '../support/gateway-process.ts';
import { issueServerPair, makeTlsFixtures, tlsHealthz } from '../support/tls-fixtures.ts';

const pki = makeTlsFixtures();
const next = issueServerPair(pki, 'next');
const live = mkdtempSync(join(tmpdir(), 'gateway-rotation-'));
const liveCert = join(live, 'server.crt');
const liveKey = join(live, 'server.key');
const started: GatewayProcess[] = [];
afterAll(async () => {
  for (const g of started) {
    g.child.kill('SIGKILL');
    await g.exited();
  }
  rmSync(live, { recursive: true, force: true });
});

/** The SHA-256 fingerprint of the certificate a fresh connection to `url` is served (the CA checked). */
function servedFingerprint(url: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = open(url);
    socket.once('secureConnect', () => {
      resolve(socket.getPeerCertificate().fingerprint256);
      socket.end();
    });
    socket.once('error', reject);
  });
}

function open(url: string): TLSSocket {
  const { hostname, port } = new URL(url);
  return connect({ host: hostname, port: Number(port), ca: pki.pem.ca });
}

/** The fingerprint of a PEM certificate file, as a server presenting it would show it. */
async function fingerprintOf(certFile: string): Promise<string> {
  const { X509Certificate } = await import('node:crypto');
  return new X509Certificate(readFileSync(certFile)).fingerprint256;
}

async function until(what: string, check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Fingerprints of `n` fresh connections at once (SO_REUSEPORT spreads them over both workers). */
const freshFingerprints = (url: string, n = 24) => Promise.all(Array.from({ length: n }, () => servedFingerprint(url)));

const hup = (g: GatewayProcess) => {
  const before = g.lines.length;
  g.child.kill('SIGHUP');
  return { logged: () => g.lines.slice(before).find((l) => typeof l.msg === 'string' && l.msg.startsWith('SIGHUP')) };
};

describe('certificate rotation on SIGHUP', () => {
  it('serves a new pair to new connections on every worker and the admin plane, finishes a request in flight, and refuses a broken pair', async () => {
    copyFileSync(pki.files.serverCert, liveCert);
    copyFileSync(pki.files.serverKey, liveKey);
    const g = await startGatewayProcess(
      `listen: 127.0.0.1:0\nadmin_listen: 127.0.0.1:0\nworkers: 2\nlog_level: info\nmodels: { demo: { provider: demo, model: demo-echo } }\n` +
        `tls: { cert: ${liveCert}, key: ${liveKey} }\nadmin_tls: { cert: ${liveCert}, key: ${liveKey} }\n`,
    );
    started.push(g);
    const first = await fingerprintOf(pki.files.serverCert);
    const second = await fingerprintOf(next.cert);
    expect(first).not.toBe(second);
    expect(new Set(await freshFingerprints(g.dataUrl))).toEqual(new Set([first]));
    expect(await servedFingerprint(g.adminUrl)).toBe(first);

    // A request in flight across the signal: headers sent, the body held back until after it.
    const body = JSON.stringify({ model: 'demo', messages: [{ role: 'user', content: 'across the rotation' }] });
    const inFlight = open(g.dataUrl);
    await new Promise<void>((resolve) => inFlight.once('secureConnect', () => resolve()));
    expect(inFlight.getPeerCertificate().fingerprint256).toBe(first);
    let answer = '';
    inFlight.on('data', (chunk: Buffer) => (answer += chunk.toString()));
    const answered = new Promise<void>((resolve) => inFlight.once('end', () => resolve()));
    inFlight.write(
      `POST /v1/chat/completions HTTP/1.1\r\nhost: gateway\r\nauthorization: Bearer sk-client\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body.slice(0, 10)}`,
    );

    copyFileSync(next.cert, liveCert);
    copyFileSync(next.key, liveKey);
    const rotated = hup(g);
    await until('the SIGHUP log line', () => rotated.logged() !== undefined);
    expect(rotated.logged()).toMatchObject({ level: 30, signal: 'SIGHUP' });
    expect(rotated.logged()?.msg).toMatch(/^SIGHUP: configuration applied to new requests/);
    // Worker 2 is told by message: it logs once it serves the new pair.
    await until('worker 2 renewing', () => g.lines.some((l) => l.worker === 2 && l.msg === 'data-plane certificates renewed for new connections'));
    expect(new Set(await freshFingerprints(g.dataUrl))).toEqual(new Set([second]));
    expect(await servedFingerprint(g.adminUrl)).toBe(second);
    const sdk = new OpenAI({
      baseURL: `${g.dataUrl}/v1`,
      apiKey: 'sk-client',
      maxRetries: 0,
      fetch: undiciFetch as unknown as typeof fetch,
      fetchOptions: { dispatcher: new Agent({ connect: { ca: pki.pem.ca } }) } as object,
    });
    expect(
      (await sdk.chat.completions.create({ model: 'demo', messages: [{ role: 'user', content: 'after the rotation' }] })).choices[0]?.message.content,
    ).toContain('after the rotation');

    inFlight.write(body.slice(10));
    await answered;
    expect(answer).toMatch(/^HTTP\/1\.1 200/);
    expect(answer).toContain('across the rotation');

    // A key that is not the certificate's: refused whole, the second pair keeps serving.
    copyFileSync(pki.files.serverCert, liveCert);
    copyFileSync(pki.files.otherKey, liveKey);
    const mismatched = hup(g);
    await until('the refusal', () => mismatched.logged() !== undefined);
    expect(mismatched.logged()).toMatchObject({ level: 50, signal: 'SIGHUP' });
    expect(mismatched.logged()?.msg).toMatch(/refused, the running one keeps serving: .*config\.yaml.*: tls: .*key values mismatch/);
    // A missing file: refused too.
    rmSync(liveKey);
    const missing = hup(g);
    await until('the refusal', () => missing.logged() !== undefined);
    expect(missing.logged()?.msg).toMatch(/refused.*key.*cannot read .*server\.key \(ENOENT\)/);
    for (const line of g.lines) expect(JSON.stringify(line)).not.toContain('-----BEGIN');
    expect(new Set(await freshFingerprints(g.dataUrl))).toEqual(new Set([second]));
    expect(await servedFingerprint(g.adminUrl)).toBe(second);
  }, 60_000);

  it('swaps the client CA: a client certificate of the new CA is served, one of the old CA refused; dropping client_ca is refused', async () => {
    const other = makeTlsFixtures(); // a second CA, with its own server and client certificates
    const caFile = join(live, 'clients-ca.crt');
    copyFileSync(pki.files.ca, caFile);
    const g = await startGatewayProcess(
      `listen: 127.0.0.1:0\nadmin_listen: 127.0.0.1:0\nworkers: 2\nlog_level: info\nmodels: { demo: { provider: demo, model: demo-echo } }\n` +
        `tls: { cert: ${pki.files.serverCert}, key: ${pki.files.serverKey}, client_ca: ${caFile} }\n`,
    );
    started.push(g);
    const oldClient = { ca: pki.pem.ca, cert: pki.pem.clientCert, key: pki.pem.clientKey };
    const newClient = { ca: pki.pem.ca, cert: other.pem.clientCert, key: other.pem.clientKey };
    const tryAll = (client: typeof oldClient) => Promise.all(Array.from({ length: 12 }, () => tlsHealthz(g.dataUrl, client)));
    expect(new Set(await tryAll(oldClient))).toEqual(new Set(['ok']));
    expect((await tryAll(newClient)).includes('ok')).toBe(false);

    copyFileSync(other.files.ca, caFile);
    const rotated = hup(g);
    await until('the SIGHUP log line', () => rotated.logged() !== undefined);
    expect(rotated.logged()?.level).toBe(30);
    await until('worker 2 renewing', () => g.lines.some((l) => l.worker === 2 && l.msg === 'data-plane certificates renewed for new connections'));
    expect(new Set(await tryAll(newClient))).toEqual(new Set(['ok']));
    expect((await tryAll(oldClient)).includes('ok')).toBe(false);

    // mTLS on or off is a server option fixed at start: refused, the new CA still checked.
    const configFile = g.child.spawnargs[g.child.spawnargs.indexOf('--config') + 1]!;
    writeFileSync(configFile, readFileSync(configFile, 'utf8').replace(/, client_ca: [^ }]+/, ''));
    const dropped = hup(g);
    await until('the refusal', () => dropped.logged() !== undefined);
    expect(dropped.logged()?.msg).toMatch(/refused.*tls: adding or removing client_ca needs a restart/);
    expect(new Set(await tryAll(newClient))).toEqual(new Set(['ok']));
  }, 60_000);
});
