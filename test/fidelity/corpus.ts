// The corpus of real payloads under test/fixtures/real/<protocol>/ (SOURCES.md says where each
// came from): request bodies, non-stream answers (errors named `error-<status>-...`), and streams
// (`.sse` as received; Gemini `.json` the JSON-array stream form). Gemini and Bedrock name the model
// and the streaming in the path: `request-paths.json` beside `requests/` keeps them per file.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROTOCOL_IDS, type ProtocolId } from '../../server/ir/index.ts';

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
}

const files = (protocol: ProtocolId, kind: string) => {
  const dir = join(CORPUS_DIR, protocol, kind);
  return existsSync(dir) ? readdirSync(dir).filter((f) => !f.startsWith('.')).sort() : [];
};

export function corpusRequests(): CorpusRequest[] {
  return PROTOCOL_IDS.flatMap((protocol) => {
    const pathsFile = join(CORPUS_DIR, protocol, 'request-paths.json');
    const paths = existsSync(pathsFile) ? JSON.parse(readFileSync(pathsFile, 'utf8')) as Record<string, { model: string; stream: boolean }> : {};
    return files(protocol, 'requests').map((file) => {
      const bytes = readFileSync(join(CORPUS_DIR, protocol, 'requests', file));
      const json = JSON.parse(bytes.toString('utf8')) as Record<string, unknown>;
      const path = paths[file];
      return {
        protocol, file, bytes, json,
        stream: path?.stream ?? json.stream === true,
        model: path?.model ?? (typeof json.model === 'string' ? json.model : undefined),
      };
    });
  });
}

export function corpusAnswers(): CorpusAnswer[] {
  return PROTOCOL_IDS.flatMap((protocol) => [
    ...files(protocol, 'responses').map((file) => ({
      protocol, file: `responses/${file}`, bytes: readFileSync(join(CORPUS_DIR, protocol, 'responses', file)), stream: false,
      status: Number(/^error-(\d{3})-/.exec(file)?.[1] ?? 200),
    })),
    ...files(protocol, 'streams').map((file) => ({
      protocol, file: `streams/${file}`, bytes: readFileSync(join(CORPUS_DIR, protocol, 'streams', file)), stream: true, status: 200,
    })),
  ]);
}
