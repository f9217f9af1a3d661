// Schema problems of an SSE text in one protocol's stream grammar: every data payload must be a
// valid stream event, OpenAI ends with `[DONE]` (if at all) and names no events, Anthropic names
// every event after its payload's `type`. `[]` when all is well.
import type { FixtureProtocol } from './fixtures.ts';
import { sseFrames } from './sse-frames.ts';
import { VALIDATORS, schemaErrors } from './validators.ts';

export function streamProblems(protocol: FixtureProtocol, text: string): string[] {
  const frames = sseFrames(text);
  if (frames.length === 0) return ['no events'];
  const problems: string[] = [];
  for (const [i, frame] of frames.entries()) {
    if (protocol === 'openai') {
      if (frame.event !== undefined) problems.push(`frame ${i}: OpenAI names no events, got ${frame.event}`);
      if (frame.data === '[DONE]') {
        if (i !== frames.length - 1) problems.push(`frame ${i}: [DONE] before the end`);
        continue;
      }
    }
    const payload = JSON.parse(frame.data) as { type?: string };
    for (const error of schemaErrors(VALIDATORS[protocol].streamEvent, payload)) problems.push(`frame ${i}: ${error} in ${frame.data}`);
    if (protocol === 'anthropic' && frame.event !== payload.type) problems.push(`frame ${i}: event ${frame.event} carries type ${payload.type}`);
  }
  return problems;
}
