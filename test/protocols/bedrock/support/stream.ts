// Decoding and encoding whole Bedrock streams, and checking encoder output against the grammar.
import type { StreamEvent } from '../../../../server/ir/index.ts';
import { bedrockCodec } from '../../../../server/protocols/bedrock/index.ts';
import { decodeChunks } from '../../support/codecs.ts';
import { schemaErrors } from '../../support/validators.ts';
import { asStreamEvent, bytesToFrames } from './frames.ts';
import { BEDROCK } from './validators.ts';

export const decodeStream = (chunks: Iterable<Uint8Array>): StreamEvent[] => decodeChunks(bedrockCodec.createStreamDecoder(), chunks);

export function encodeStream(events: readonly StreamEvent[]): Buffer {
  const encoder = bedrockCodec.createStreamEncoder({ streamUsage: true });
  return Buffer.concat(
    events.map((event) => {
      const chunk = encoder.encode(event);
      if (typeof chunk === 'string') throw new Error('the Bedrock stream encoder must produce bytes');
      return chunk;
    }),
  );
}

/** Problems of a ConverseStream body: every frame a JSON event or exception the schema accepts. `[]` when all is well. */
export function streamProblems(bytes: Uint8Array): string[] {
  const frames = bytesToFrames(bytes);
  if (frames.length === 0) return ['no frames'];
  const problems: string[] = [];
  for (const [i, frame] of frames.entries()) {
    const type = frame.headers[':message-type'];
    if (type !== 'event' && type !== 'exception') problems.push(`frame ${i}: :message-type ${type}`);
    if (frame.headers[':content-type'] !== 'application/json') problems.push(`frame ${i}: :content-type ${frame.headers[':content-type']}`);
    if (type === 'exception' && i !== frames.length - 1) problems.push(`frame ${i}: an exception before the end`);
    for (const error of schemaErrors(BEDROCK.streamEvent, asStreamEvent(frame))) problems.push(`frame ${i}: ${error}`);
  }
  return problems;
}
