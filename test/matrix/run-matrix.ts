// The 6 x 6 protocol matrix: every ingress protocol (an official SDK as the client) against every
// egress protocol (a model on a provider of that protocol), streaming and not, through a real
// gateway. A cell passes when the SDK parses exactly the text the upstream answered.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGateway } from '../../server/app/start-gateway.ts';
import { loadConfigFile } from '../../server/config/load-config.ts';
import { PROTOCOL_IDS, type ProtocolId } from '../../server/ir/index.ts';
import { createLogger } from '../../server/observability/logger.ts';
import { sdkClients } from './sdk-clients.ts';
import { REPLY_TEXT, startSixProtocolUpstream } from './six-protocol-upstream.ts';

export interface MatrixCell {
  readonly ingress: ProtocolId;
  readonly egress: ProtocolId;
  readonly stream: boolean;
  readonly ok: boolean;
  readonly detail: string;
}

/** Catalog provider per protocol, and where its base URL points (what each SDK takes as base URL). */
const PROVIDER: Record<ProtocolId, { name: string; suffix: string }> = {
  openai: { name: 'openai', suffix: '/v1' },
  responses: { name: 'openai-responses', suffix: '/v1' },
  anthropic: { name: 'anthropic', suffix: '' },
  gemini: { name: 'gemini', suffix: '' },
  bedrock: { name: 'bedrock', suffix: '' },
  cohere: { name: 'cohere', suffix: '' },
};

export async function runMatrix(): Promise<{ cells: MatrixCell[]; schemaViolations: string[] }> {
  const upstream = await startSixProtocolUpstream();
  const dir = mkdtempSync(join(tmpdir(), 'gateway-matrix-'));
  writeFileSync(join(dir, 'providers.yaml'), PROTOCOL_IDS.map((p) => `${PROVIDER[p].name}: { base_url: ${upstream.url}${PROVIDER[p].suffix} }`).join('\n') + '\n');
  const keyed = PROTOCOL_IDS.filter((p) => p !== 'bedrock'); // bedrock signs with AWS credentials from the environment
  writeFileSync(join(dir, 'config.yaml'), [
    'listen: 127.0.0.1:0', 'admin_listen: 127.0.0.1:0', 'catalog: ./providers.yaml', 'log_level: silent',
    'providers:', ...keyed.map((p) => `  ${PROVIDER[p].name}: { api_key: { env: MATRIX_KEY } }`),
    'models:', ...PROTOCOL_IDS.map((p) => `  m-${p}: { provider: ${PROVIDER[p].name}, model: upstream-${p} }`),
  ].join('\n') + '\n');
  const config = loadConfigFile(join(dir, 'config.yaml'), { env: { MATRIX_KEY: 'upstream-key', AWS_ACCESS_KEY_ID: 'AKIDMATRIX', AWS_SECRET_ACCESS_KEY: 'matrix-secret', AWS_REGION: 'us-east-1' } });
  const gateway = await startGateway(config, { log: createLogger('silent') });
  const clients = sdkClients(gateway.dataUrl);
  const cells: MatrixCell[] = [];
  try {
    for (const ingress of PROTOCOL_IDS) {
      for (const egress of PROTOCOL_IDS) {
        for (const stream of [false, true]) {
          try {
            const text = await clients[ingress](`m-${egress}`, stream);
            const ok = text === REPLY_TEXT(egress);
            cells.push({ ingress, egress, stream, ok, detail: ok ? '' : `got ${JSON.stringify(text)}` });
          } catch (error) {
            cells.push({ ingress, egress, stream, ok: false, detail: (error as Error).message.slice(0, 300) });
          }
        }
      }
    }
  } finally {
    await gateway.close();
    await upstream.close();
  }
  return { cells, schemaViolations: upstream.schemaViolations };
}

/** One row per ingress protocol, one column per egress protocol; each cell `ok/ok` (non-stream/stream). */
export function formatMatrix(cells: readonly MatrixCell[]): string {
  const mark = (i: ProtocolId, e: ProtocolId, s: boolean) => (cells.find((c) => c.ingress === i && c.egress === e && c.stream === s)?.ok ? 'ok' : 'FAIL');
  const width = 11;
  const pad = (s: string) => s.padEnd(width);
  const header = pad('in \\ out') + PROTOCOL_IDS.map(pad).join('');
  const rows = PROTOCOL_IDS.map((i) => pad(i) + PROTOCOL_IDS.map((e) => pad(`${mark(i, e, false)}/${mark(i, e, true)}`)).join(''));
  const passed = cells.filter((c) => c.ok).length;
  return [header, ...rows, '', `cells: non-stream/stream; ${passed} of ${cells.length} passed`].join('\n');
}
