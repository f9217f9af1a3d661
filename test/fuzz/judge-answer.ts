// What the fuzz suite demands of every answer: never a 5xx (the mock upstream never sends one, so
// any 5xx is the gateway's own), every 4xx with an error body in the client protocol's shape, and
// a 2xx stream that does not end in an error event (a failure after commit).
import type { ValidateFunction } from 'ajv';
import anthropicError from '../../generated/validators/anthropic-error.js';
import bedrockError from '../../generated/validators/bedrock-error.js';
import cohereError from '../../generated/validators/cohere-error.js';
import geminiError from '../../generated/validators/gemini-error.js';
import openaiError from '../../generated/validators/openai-error.js';
import responsesError from '../../generated/validators/responses-error.js';
import type { ProtocolId } from '../../server/ir/index.ts';
import type { FuzzCase } from './fuzz-cases.ts';

const ERROR_SHAPES: Readonly<Record<ProtocolId, ValidateFunction>> = {
  openai: openaiError,
  responses: responsesError,
  anthropic: anthropicError,
  gemini: geminiError,
  bedrock: bedrockError,
  cohere: cohereError,
};

export interface Answer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: Buffer;
}

function parse(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

/** Error events of each stream framing: SSE `event: error`, an `error` member, Bedrock's exception frames. */
const STREAM_ERROR = /^event: ?error\b|^data: ?\{"(?:type":"error"|error")|"type":"error"|:message-type\x07\x00\texception|^\[?\{"error":/m;

/** Undefined when the answer is acceptable, else what is wrong with it. */
export function judgeAnswer(c: FuzzCase, answer: Answer): string | undefined {
  const { status } = answer;
  if (status >= 500) return `gateway answered ${status}: ${answer.body.toString('utf8').slice(0, 300)}`;
  if (status >= 400) {
    if (c.method === 'HEAD') return undefined; // a HEAD answer has no body by definition
    const body = parse(answer.body);
    if (body === undefined) return `${status} without a JSON error body: ${JSON.stringify(answer.body.toString('utf8').slice(0, 200))}`;
    const shapes = c.protocol === undefined ? Object.values(ERROR_SHAPES) : [ERROR_SHAPES[c.protocol]];
    if (!shapes.some((validate) => validate(body)))
      return `${status} body is not a ${c.protocol ?? 'known protocol'} error: ${answer.body.toString('utf8').slice(0, 300)}`;
    return undefined;
  }
  if (c.kind === 'chat' && c.method === 'POST' && status >= 200 && status < 300) {
    const text = answer.body.toString('latin1');
    if (STREAM_ERROR.test(text)) return `${status} answer carries an error event: ${text.slice(0, 300)}`;
  }
  return undefined;
}
