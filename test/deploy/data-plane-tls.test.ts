// `tls:` puts the data plane on HTTPS in every worker; with `client_ca` a client certificate the CA
// signed is required, checked in the handshake. Clients: the official OpenAI SDK, with undici's
// fetch and an Agent carrying the CA (and the client certificate for mTLS).
import OpenAI from 'openai';
import { readFileSync } from 'node:fs';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../server/config/config-error.ts';
import { startGateway } from '../../server/app/start-gateway.ts';
import { loadConfigText } from '../../server/config/load-config.ts';
import { createLogger } from '../../server/shared/logger.ts';
import { startGatewayProcess, type GatewayProcess } from '../support/gateway-process.ts';
import { makeTlsFixtures, tlsHealthz, type TlsFixtures } from '../support/tls-fixtures.ts';

let pki: TlsFixtures;
const started: GatewayProcess[] = [];
beforeAll(() => {
  pki = makeTlsFixtures();
});
afterAll(async () => {
  for (const g of started) {
    g.child.kill('SIGKILL');
    await g.exited();
  }
});

const MODELS = 'models: { demo: { provider: demo, model: demo-echo } }\n';

async function startTls(tlsYaml: string, env: Record<string, string> = {}): Promise<GatewayProcess> {
  const g = await startGatewayProcess(`listen: 127.0.0.1:0\nadmin_listen: 127.0.0.1:0\nworkers: 2\nlog_level: info\n${MODELS}${tlsYaml}`, { env });
  started.push(g);
  return g;
}

function sdk(g: { dataUrl: string }, connectOptions: { ca?: string; cert?: string; key?: string }): OpenAI {
  const dispatcher = new Agent({ connect: connectOptions });
  return new OpenAI({
    baseURL: `${g.dataUrl}/v1`,
    apiKey: 'sk-client',
    maxRetries: 0,
    fetch: undiciFetch as unknown as typeof fetch,
    fetchOptions: { dispatcher } as object,
  });
}

const ask = (client: OpenAI) => client.chat.completions.create({ model: 'demo', messages: [{ role: 'user', content: 'over TLS' }] });

describe('data-plane TLS', () => {
  it('serves the OpenAI SDK over HTTPS from every worker, the key read from an environment variable', async () => {
    // In-process, to see which worker served: each of the two must have answered over TLS.
    const config = loadConfigText(
      `listen: 127.0.0.1:0\nadmin_listen: 127.0.0.1:0\nworkers: 2\n${MODELS}tls: { cert: ${pki.files.serverCert}, key: { env: GW_TLS_KEY } }\n`,
      '/virtual/config.yaml',
      '/virtual',
      { env: { GW_TLS_KEY: readPem(pki.files.serverKey) } },
    );
    const gateway = await startGateway(config, { log: createLogger('silent') });
    try {
      expect(gateway.dataUrl).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
      const at = { dataUrl: gateway.dataUrl };
      // A client (and so a connection) each: the kernel spreads them over both workers.
      const answers = await Promise.all(
        Array.from({ length: 24 }, (_, i) =>
          sdk(at, { ca: pki.pem.ca }).chat.completions.create({ model: 'demo', messages: [{ role: 'user', content: `over TLS ${i}` }] }),
        ),
      );
      answers.forEach((completion, i) => expect(completion.choices[0]?.message.content).toContain(`over TLS ${i}`));
      const served = await gateway.workerTelemetry();
      expect(served.map((w) => w.worker)).toEqual([1, 2]);
      expect(served.every((w) => w.requests > 0)).toBe(true);
      // A client that does not trust the CA is refused by its own check: the server is really TLS.
      await expect(ask(sdk(at, {}))).rejects.toThrow(OpenAI.APIConnectionError);
    } finally {
      await gateway.close(0);
    }
  });

  it('with client_ca, refuses a connection without a client certificate in the handshake and serves one with a certificate the CA signed', async () => {
    const g = await startTls(`tls: { cert: { file: ${pki.files.serverCert} }, key: ${pki.files.serverKey}, client_ca: ${pki.files.ca} }\n`);
    expect(await tlsHealthz(g.dataUrl, { ca: pki.pem.ca })).not.toBe('ok');
    expect(await tlsHealthz(g.dataUrl, { ca: pki.pem.ca, cert: pki.pem.otherCert, key: pki.pem.otherKey })).not.toBe('ok');
    expect(await tlsHealthz(g.dataUrl, { ca: pki.pem.ca, cert: pki.pem.clientCert, key: pki.pem.clientKey })).toBe('ok');

    await expect(ask(sdk(g, { ca: pki.pem.ca }))).rejects.toThrow(OpenAI.APIConnectionError);
    await expect(ask(sdk(g, { ca: pki.pem.ca, cert: pki.pem.otherCert, key: pki.pem.otherKey }))).rejects.toThrow(OpenAI.APIConnectionError);
    const completion = await ask(sdk(g, { ca: pki.pem.ca, cert: pki.pem.clientCert, key: pki.pem.clientKey }));
    expect(completion.choices[0]?.message.content).toContain('over TLS');
  });
});

describe('tls: at load', () => {
  const load = (tlsYaml: string, env: Record<string, string> = {}) => loadConfigText(`${MODELS}${tlsYaml}`, '/virtual/config.yaml', '/virtual', { env });
  const problems = (tlsYaml: string, env: Record<string, string> = {}) => {
    try {
      load(tlsYaml, env);
    } catch (error) {
      if (error instanceof ConfigError) return error.problems.map((p) => `${p.path}: ${p.message}`);
      throw error;
    }
    return [];
  };

  it('reads each part from a path, { file } or { env }', () => {
    const config = load(`tls: { cert: ${pki.files.serverCert}, key: { env: K }, client_ca: { file: ${pki.files.ca} } }\n`, { K: readPem(pki.files.serverKey) });
    expect(config.tls?.cert).toBe(readPem(pki.files.serverCert));
    expect(config.tls?.clientCa).toBe(pki.pem.ca);
  });

  it('refuses a missing file, an unset variable, text that is not PEM and a key of another certificate, never quoting the PEM', () => {
    expect(problems('tls: { cert: ./nope.crt, key: { env: UNSET } }\n')).toEqual([
      'tls.cert: cannot read /virtual/nope.crt (ENOENT)',
      'tls.key: environment variable UNSET is not set',
    ]);
    expect(problems(`tls: { cert: ${pki.files.serverCert}, key: { env: K } }\n`, { K: 'not a key' })).toEqual([
      'tls.key: environment variable K holds no PEM block (-----BEGIN ...)',
    ]);
    const mismatch = problems(`tls: { cert: ${pki.files.serverCert}, key: ${pki.files.clientKey} }\n`);
    expect(mismatch).toHaveLength(1);
    expect(mismatch[0]).toMatch(/^tls: the certificate, key and client CA cannot be used together/);
    expect(mismatch[0]).not.toContain('PRIVATE KEY');
  });
});

const readPem = (file: string) => readFileSync(file, 'utf8');
