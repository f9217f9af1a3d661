// The 6 x 6 protocol matrix: every ingress protocol (an official SDK as the client) against every
// egress protocol (a model on a provider of that protocol), streaming and not, through a real
// gateway. A cell passes when the SDK parses exactly the text the upstream answered.
import type { ProtocolId } from '../../server/ir/index.ts';
import { PROTOCOL_IDS } from '../../server/protocols/registry.ts';
import { laneModel, startSixLaneGateway } from '../support/six-lane-gateway.ts';
import { sdkClients } from './sdk-clients.ts';
import { REPLY_TEXT, startSixProtocolUpstream } from './six-protocol-upstream.ts';

export interface MatrixCell {
  readonly ingress: ProtocolId;
  readonly egress: ProtocolId;
  readonly stream: boolean;
  readonly ok: boolean;
  readonly detail: string;
}

export async function runMatrix(): Promise<{ cells: MatrixCell[]; schemaViolations: string[] }> {
  const upstream = await startSixProtocolUpstream();
  const gateway = await startSixLaneGateway({ upstreamUrl: upstream.url });
  const clients = sdkClients(gateway.dataUrl);
  const cells: MatrixCell[] = [];
  try {
    for (const ingress of PROTOCOL_IDS) {
      for (const egress of PROTOCOL_IDS) {
        for (const stream of [false, true]) {
          try {
            const text = await clients[ingress](laneModel(egress), stream);
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
