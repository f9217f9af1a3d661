// A Bedrock lane signed with SigV4: what its requests carry is the access key id (inside the
// Authorization header's Credential=) and, for temporary credentials, the session token
// (x-amz-security-token). An upstream that echoes both, in a header and in the answer, reaches
// clients with neither, on the same-protocol path and translated.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type RunningGateway } from '../../server/app/start-gateway.ts';
import { loadConfigFile } from '../../server/config/load-config.ts';
import { CREDENTIAL_MARKER } from '../../server/gateway/credential-mask.ts';
import { createLogger } from '../../server/shared/logger.ts';
import { startMockUpstream, type MockUpstream } from '../support/mock-upstream.ts';
import { echoReply, rawRequest, type Place } from './credential-echo-world.ts';

const ACCESS_KEY_ID = 'ASIAZ7QWERTY42UIOPLK';
const SECRET_ACCESS_KEY = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY';
const SESSION_TOKEN = 'IQoJb3JpZ2luX2VjEJr//////////wEaCXVzLWVhc3QtMSJHMEUCIQD6+u7Kc0NDt3Kx2L9p8v1mQrB5y==';

let upstream: MockUpstream;
let gateway: RunningGateway;
beforeAll(async () => {
  upstream = await startMockUpstream();
  const dir = mkdtempSync(join(tmpdir(), 'gateway-sigv4-'));
  writeFileSync(join(dir, 'providers.yaml'), `bedrock: { base_url: ${upstream.url} }\n`);
  writeFileSync(
    join(dir, 'config.yaml'),
    'listen: 127.0.0.1:0\nadmin_listen: 127.0.0.1:0\ncatalog: ./providers.yaml\nlog_level: silent\nmodels:\n  signed: { provider: bedrock, model: upstream-bedrock }\n',
  );
  const env = { AWS_ACCESS_KEY_ID: ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY: SECRET_ACCESS_KEY, AWS_SESSION_TOKEN: SESSION_TOKEN, AWS_REGION: 'us-east-1' };
  gateway = await startGateway(loadConfigFile(join(dir, 'config.yaml'), { env }), { log: createLogger('silent'), workers: 1 });
});
afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

function send(path: string, body: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(`${gateway.dataUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' } }, (res) => {
      const chunks: Buffer[] = [Buffer.from(`${res.statusCode}\r\n${res.rawHeaders.join('\r\n')}\r\n\r\n`, 'latin1')];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve(Buffer.concat(chunks).toString('latin1')));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('SigV4 lanes: the access key id and the session token never reach a client', () => {
  const places: Place[] = ['header', 'body', 'split-event', 'split-read'];
  const cases = places.flatMap((place) =>
    (['bedrock', 'openai', 'anthropic'] as const).flatMap((ingress) => [false, true].map((stream) => ({ place, ingress, stream }))),
  );
  it.each(cases)('$place, $ingress client, stream $stream', async ({ place, ingress, stream }) => {
    upstream.enqueue((req) => {
      const signature = req.headers.authorization;
      const token = req.headers['x-amz-security-token'];
      expect(signature).toContain(`Credential=${ACCESS_KEY_ID}/`); // signed, not a Bearer key
      expect(token).toBe(SESSION_TOKEN);
      return echoReply('bedrock', place, stream, place === 'header' ? String(signature) : `${ACCESS_KEY_ID} ${String(token)}`);
    });
    const { path, body } = rawRequest(ingress, 'signed', stream);
    const answer = await send(path, body);
    expect(answer.slice(0, 3)).toBe('200');
    expect(answer).toContain(CREDENTIAL_MARKER);
    for (const secret of [ACCESS_KEY_ID, SESSION_TOKEN, SECRET_ACCESS_KEY]) {
      for (let i = 0; i + 8 <= secret.length; i++) expect(answer, `piece ${secret.slice(i, i + 8)}`).not.toContain(secret.slice(i, i + 8));
    }
  });
});
