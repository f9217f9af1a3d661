// The corpus of real payloads under test/fixtures/real/<protocol>/ (SOURCES.md says where each
// came from): request bodies, non-stream answers (errors named `error-<status>-...`), and streams
// (`.sse` as received; Bedrock `.jsonl`, one event per line as the AWS SDKs decode them, framed
// here into AWS event-stream frames). Gemini and Bedrock name the model and the streaming in the
// path: `request-paths.json` beside `requests/` keeps them per file. An error answer whose meaning
// is in its headers (Bedrock's `x-amzn-errortype`) has them in `error-headers.json`.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EVENTSTREAM_HEADERS, encodeFrame } from '../../server/framing/eventstream-frame.ts';
import type { ProtocolId } from '../../server/ir/index.ts';
import { PROTOCOL_IDS } from '../../server/protocols/registry.ts';

export const CORPUS_DIR = new URL('../fixtures/real/', import.meta.url).pathname;

export interface CorpusRequest {
  readonly protocol: ProtocolId;
  readonly file: string;
  readonly bytes: Buffer;
  readonly json: Record<string, unknown>;
  readonly stream: boolean;
  /** The model the source named (in the body, or the path for Gemini and Bedrock). */
  readonly model: string | undefined;
}

export interface CorpusAnswer {
  readonly protocol: ProtocolId;
  readonly file: string;
  readonly bytes: Buffer;
  readonly stream: boolean;
  /** The HTTP status (200 unless the file is an error answer). */
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
}

const files = (protocol: ProtocolId, kind: string) => {
  const dir = join(CORPUS_DIR, protocol, kind);
  return existsSync(dir)
    ? readdirSync(dir)
        .filter((f) => !f.startsWith('.'))
        .sort()
    : [];
};

export function corpusRequests(): CorpusRequest[] {
  return PROTOCOL_IDS.flatMap((protocol) => {
    const pathsFile = join(CORPUS_DIR, protocol, 'request-paths.json');
    const paths = existsSync(pathsFile) ? (JSON.parse(readFileSync(pathsFile, 'utf8')) as Record<string, { model: string; stream: boolean }>) : {};
    return files(protocol, 'requests').map((file) => {
      const bytes = readFileSync(join(CORPUS_DIR, protocol, 'requests', file));
      const json = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
      const path = paths[file];
      return {
        protocol,
        file,
        bytes,
        json,
        stream: path?.stream ?? json.stream === true,
        model: path?.model ?? (typeof json.model === 'string' ? json.model : undefined),
      };
    });
  });
}

export function corpusAnswers(): CorpusAnswer[] {
  return PROTOCOL_IDS.flatMap((protocol) => {
    const headersFile = join(CORPUS_DIR, protocol, 'error-headers.json');
    const errorHeaders = existsSync(headersFile) ? (JSON.parse(readFileSync(headersFile, 'utf8')) as Record<string, Record<string, string>>) : {};
    return [
      ...files(protocol, 'responses').map((file) => ({
        protocol,
        file: `responses/${file}`,
        bytes: readFileSync(join(CORPUS_DIR, protocol, 'responses', file)),
        stream: false,
        status: Number(/^error-(\d{3})-/.exec(file)?.[1] ?? 200),
        headers: errorHeaders[file] ?? { 'content-type': 'application/json' },
      })),
      ...files(protocol, 'streams').map((file) => {
        const raw = readFileSync(join(CORPUS_DIR, protocol, 'streams', file));
        const framed = file.endsWith('.jsonl');
        return {
          protocol,
          file: `streams/${file}`,
          bytes: framed ? eventStreamFrames(raw.toString('utf8')) : raw,
          stream: true,
          status: 200,
          headers: framed ? { ...EVENTSTREAM_HEADERS } : { 'content-type': 'text/event-stream' },
        };
      }),
    ];
  });
}

/** One `{"<eventType>": {...}}` per line, as AWS event-stream frames on the wire. */
function eventStreamFrames(jsonl: string): Buffer {
  const frames = jsonl
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const [eventType, payload] = Object.entries(JSON.parse(line) as Record<string, unknown>)[0]!;
      return encodeFrame({ ':event-type': eventType, ':content-type': 'application/json', ':message-type': 'event' }, JSON.stringify(payload));
    });
  return Buffer.concat(frames);
}
