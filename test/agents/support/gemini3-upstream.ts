// A Gemini 3 stand-in for tool loops: it signs function calls with `thoughtSignature` and, as
// Gemini 3 does, refuses with 400 INVALID_ARGUMENT any request whose history replays a function
// call it signed without that signature. Its answers are hand-written Gemini wire JSON.
//
// The script, by the number of model turns in the request's history:
//   0: two parallel calls, read_file(a.ts) signed S1 and read_file(b.ts) unsigned (Gemini signs
//      only the first call of a parallel group), no ids (Gemini usually sends none)
//   1: run_tests(auth) signed S2, with an explicit id
//   2: the final text, itself carrying a (text) signature
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Base64 that exercises the whole alphabet: `+`, `/` and padding, as real signatures do. */
function signature(seed: string, bytes: number): string {
  const chunks: Buffer[] = [Buffer.from([0xfb, 0xef, 0xff])];
  for (let i = 0; Buffer.concat(chunks).length < bytes; i++) chunks.push(createHash('sha256').update(`${seed}:${i}`).digest());
  return Buffer.concat(chunks).subarray(0, bytes).toString('base64');
}

export const S1 = signature('s1', 700); // 934 characters, ends in `=`
export const S2 = signature('s2', 90);
export const S3 = signature('s3', 40);

export const FINAL_TEXT = 'All auth tests pass.';

const callKey = (name: string, args: unknown) => `${name}:${JSON.stringify(args)}`;
/** What the upstream signed: call key -> signature. */
const SIGNED = new Map([
  [callKey('read_file', { path: 'a.ts' }), S1],
  [callKey('run_tests', { filter: 'auth' }), S2],
]);

interface Part {
  text?: string;
  thought?: boolean;
  thoughtSignature?: string;
  functionCall?: { id?: string; name: string; args: unknown };
}
interface Content {
  role?: string;
  parts: Part[];
}

const usage = { promptTokenCount: 40, candidatesTokenCount: 12, totalTokenCount: 52 };

/** The answer for a history with `turns` model turns, as the chunks of a stream (one chunk when not streaming). */
function answer(turns: number): Record<string, unknown>[] {
  const chunk = (parts: Part[], last: boolean) => ({
    candidates: [{ content: { role: 'model', parts }, index: 0, ...(last && { finishReason: 'STOP' }) }],
    ...(last && { usageMetadata: usage }),
    modelVersion: 'gemini-3-pro-preview',
    responseId: `gemini3-turn-${turns}`,
  });
  if (turns === 0) {
    return [
      chunk([{ functionCall: { name: 'read_file', args: { path: 'a.ts' } }, thoughtSignature: S1 }], false),
      chunk([{ functionCall: { name: 'read_file', args: { path: 'b.ts' } } }], true),
    ];
  }
  if (turns === 1) return [chunk([{ functionCall: { id: 'fc-7f3a', name: 'run_tests', args: { filter: 'auth' } }, thoughtSignature: S2 }], true)];
  return [chunk([{ text: 'All auth ' }], false), chunk([{ text: 'tests pass.', thoughtSignature: S3 }], true)];
}

/** The first signed call the history replays without its signature, as Gemini 3 words it. */
function missingSignature(contents: Content[]): string | undefined {
  for (const [i, content] of contents.entries()) {
    if (content.role !== 'model') continue;
    for (const part of content.parts) {
      const call = part.functionCall;
      if (call === undefined) continue;
      const issued = SIGNED.get(callKey(call.name, call.args));
      if (issued !== undefined && part.thoughtSignature !== issued) {
        return `Unable to submit request because function call \`${call.name}\` in the ${i + 1}. content block is missing a \`thought_signature\`.`;
      }
    }
  }
  return undefined;
}

export interface Gemini3Upstream {
  readonly url: string;
  /** Every request body, oldest first. */
  readonly bodies: { contents: Content[] }[];
  /** The refusals it answered (each one a test failure). */
  readonly refusals: string[];
  close(): Promise<void>;
}

export async function startGemini3Upstream(): Promise<Gemini3Upstream> {
  const bodies: { contents: Content[] }[] = [];
  const refusals: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { contents: Content[] };
      bodies.push(body);
      const missing = missingSignature(body.contents);
      if (missing !== undefined) {
        refusals.push(missing);
        res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { code: 400, message: missing, status: 'INVALID_ARGUMENT' } }));
        return;
      }
      const pieces = answer(body.contents.filter((c) => c.role === 'model').length);
      if (!(req.url ?? '').includes(':streamGenerateContent')) {
        // Non-stream: the chunks' parts in one candidate.
        const parts = pieces.flatMap((p) => (p.candidates as { content: Content }[])[0]?.content.parts ?? []);
        const last = pieces[pieces.length - 1] as { candidates: Record<string, unknown>[] };
        const whole = { ...last, candidates: [{ ...last.candidates[0], content: { role: 'model', parts } }] };
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(whole));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(pieces.map((p) => `data: ${JSON.stringify(p)}\r\n\r\n`).join(''));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bodies,
    refusals,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
