// A provider that speaks all six protocols, scripted per request: it records each request (the
// protocol is read from the path) and answers with the IR reply the test's script gives, written by
// that protocol's own encoder, streamed or not as asked. The encoders are what the codecs' SDK
// tests establish as faithful to the official SDKs, so the answers are real wire format.
import type { ChatResponse, ProtocolId } from '../../../server/ir/index.ts';
import { startSixProtocolServer, wantsStream, writeAnswer } from '../../support/six-protocol-server.ts';

export interface SeenRequest {
  readonly protocol: ProtocolId;
  readonly path: string;
  readonly json: Record<string, unknown>;
  readonly raw: string;
}

/** The answer to one request, or an HTTP error `{status, body}` (a refusal, as the provider would word it). */
export type Script = (request: SeenRequest) => ChatResponse | { status: number; body: unknown };

export interface ScriptedUpstream {
  readonly url: string;
  readonly requests: SeenRequest[];
  script: Script;
  close(): Promise<void>;
}

export async function startScriptedUpstream(script: Script): Promise<ScriptedUpstream> {
  const requests: SeenRequest[] = [];
  const upstream: ScriptedUpstream = { url: '', requests, script, close: async () => {} };
  const server = await startSixProtocolServer((call, res) => {
    const raw = call.body.toString('utf8');
    const seen: SeenRequest = { protocol: call.protocol, path: call.path, json: JSON.parse(raw) as Record<string, unknown>, raw };
    requests.push(seen);
    const answer = upstream.script(seen);
    if ('status' in answer) {
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
      return;
    }
    writeAnswer(res, call, answer, wantsStream(call, seen.json));
  });
  Object.assign(upstream, { url: server.url, close: () => server.close() });
  return upstream;
}
