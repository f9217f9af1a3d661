// Every golden IR of the other protocols (test/fixtures/openai and anthropic) must encode to a
// valid Cohere body: a request for a Cohere lane, a response and a stream for a Cohere client.
// What Cohere cannot carry is reported as a warning; nothing in those fixtures needs a 400 (the one
// request shape Cohere refuses, a named tool_choice, is covered in codec-rules.test.ts).
import { describe, expect, it } from 'vitest';
import type { ChatRequest, ChatResponse, StreamEvent } from '../../../server/ir/index.ts';
import type { TranslationWarning } from '../../../server/protocols/codec.ts';
import { schemaErrors } from '../support/validators.ts';
import { COHERE_LANE, SCHEMAS, codec, decodeStream, encodeStream, hasFile, readJson, scenariosOf, streamProblems } from './support.ts';

const foreign = [...scenariosOf('openai'), ...scenariosOf('anthropic')];

/** Warnings some fixtures must produce: the losses a reviewer would expect on a hop to Cohere. */
const EXPECTED_WARNINGS: Record<string, readonly string[]> = {
  'anthropic/thinking-with-signature': ['messages[1].content[0].signature', 'messages[1].content[1].redacted'],
  'anthropic/tool-call-parallel': ['messages[2].content[1].is_error', 'tools[1].cache_control'],
  'openai/system-and-multi-turn': ['user'],
};

function expectOnlyReports(warnings: readonly TranslationWarning[]): void {
  for (const warning of warnings) {
    expect(['dropped', 'reshaped']).toContain(warning.kind);
    expect(warning.path).not.toBe('');
  }
}

describe('the fixtures of the other protocols', () => {
  it('are there to walk', () => {
    expect(foreign.length).toBeGreaterThanOrEqual(20);
  });
});

for (const scenario of foreign) {
  const name = `${scenario.protocol}/${scenario.name}`;
  describe(name, () => {
    if (hasFile(scenario, 'request.ir.json')) {
      it("request.ir.json encodes to a valid Cohere request for the lane's model", () => {
        const ir = readJson<ChatRequest>(scenario, 'request.ir.json');
        const { body, warnings } = codec.encodeRequest(ir, COHERE_LANE);
        expect(schemaErrors(SCHEMAS.request, body)).toEqual([]);
        expect(body.model).toBe(COHERE_LANE.model);
        expectOnlyReports(warnings);
        const expected = EXPECTED_WARNINGS[name];
        if (expected !== undefined) expect(warnings.map((w) => w.path)).toEqual(expect.arrayContaining([...expected]));
        // The Cohere body reads back as a request with the same number of turns' worth of text.
        const again = codec.decodeRequest(JSON.parse(JSON.stringify(body)) as Record<string, unknown>, {});
        expect(textOf(again.messages.flatMap((m) => m.content))).toEqual(textOf(ir.messages.flatMap((m) => m.content)));
      });
    }

    if (hasFile(scenario, 'response.ir.json')) {
      it('response.ir.json encodes to a valid Cohere response that keeps the text and tool calls', () => {
        const ir = readJson<ChatResponse>(scenario, 'response.ir.json');
        const { body, warnings } = codec.encodeResponse(ir, { streamUsage: false });
        expect(schemaErrors(SCHEMAS.response, body)).toEqual([]);
        expectOnlyReports(warnings);
        const again = codec.decodeResponse(JSON.parse(JSON.stringify(body)) as Record<string, unknown>);
        expect(textOf(again.content)).toEqual(textOf(ir.content));
        expect(again.usage?.inputTokens).toBe(ir.usage?.inputTokens);
        expect(again.usage?.outputTokens).toBe(ir.usage?.outputTokens);
      });
    }

    if (hasFile(scenario, 'stream.ir.json')) {
      it("stream.ir.json encodes to a valid Cohere stream that keeps every block's content and how it ended", () => {
        const events = readJson<StreamEvent[]>(scenario, 'stream.ir.json');
        const { text, warnings } = encodeStream(events);
        expect(streamProblems(text)).toEqual([]);
        expectOnlyReports(warnings as TranslationWarning[]);
        const again = decodeStream([Buffer.from(text)]);
        expect(blocksOf(again)).toEqual(blocksOf(events));
        expect(again.at(-1)?.type).toBe(events.at(-1)?.type);
      });
    }
  });
}

/** Text, reasoning text and tool calls in order, each run of text joined (the tool plan may merge runs). */
function textOf(blocks: readonly { type: string; text?: string; id?: string; name?: string; arguments?: string; callId?: string }[]): string[] {
  return blocks
    .flatMap((b) => {
      if (b.type === 'text') return [`text:${b.text}`];
      if (b.type === 'reasoning') return b.text ? [`reasoning:${b.text}`] : [];
      if (b.type === 'tool_call') return [`call:${b.id}:${b.name}:${b.arguments}`];
      if (b.type === 'tool_result') return [`result:${b.callId}`];
      return [`${b.type}`];
    })
    .sort();
}

/** Each block's kind and accumulated content, in order; encrypted reasoning has no Cohere form. */
function blocksOf(events: readonly StreamEvent[]): string[] {
  const blocks = new Map<number, string>();
  for (const e of events) {
    if (e.type === 'block_start' && e.block.type !== 'redacted_reasoning') {
      blocks.set(e.index, e.block.type === 'tool_call' ? `tool_call:${e.block.id}:${e.block.name}:` : `${e.block.type}:`);
    } else if (e.type === 'block_delta' && blocks.has(e.index) && e.delta.type !== 'signature') {
      blocks.set(e.index, blocks.get(e.index) + (e.delta.type === 'tool_arguments' ? e.delta.partialJson : e.delta.text));
    }
  }
  return [...blocks.values()];
}
