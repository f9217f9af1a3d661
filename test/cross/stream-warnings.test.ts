// Answer-side warnings of a translated stream reach a streaming client: an SSE comment block just
// before the protocol's terminator (a header of the closing metadata frame for Bedrock's event
// stream). Each official SDK must still parse the stream whole, and the note must be in the bytes.
import { BedrockRuntimeClient, ConverseStreamCommand } from '@aws-sdk/client-bedrock-runtime';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeFrame } from '../../server/framing/eventstream-frame.ts';
import { EventStreamSplitter } from '../../server/framing/eventstream-splitter.ts';
import type { ProtocolId, StreamEvent } from '../../server/ir/index.ts';
import { anthropicAt, cohereAt, geminiAt, openaiAt } from '../support/sdk-at.ts';
import { startRecordingProxy, type RecordingProxy } from '../support/recording-proxy.ts';
import { startSixLaneHarness, upstreamStream, type SixLaneHarness } from '../support/six-lane-harness.ts';

const USAGE = { inputTokens: 7, outputTokens: 5, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 2 };

/** A thought the client protocol cannot show (another vendor's, signed), then the answer text. */
function reasoningThenText(origin: ProtocolId): StreamEvent[] {
  return [
    { type: 'message_start', id: 'msg_1', model: 'upstream' },
    { type: 'block_start', index: 0, block: { type: 'reasoning', origin } },
    { type: 'block_delta', index: 0, delta: { type: 'reasoning', text: 'thinking it over' } },
    { type: 'block_delta', index: 0, delta: { type: 'signature', signature: 'c2lnbmF0dXJl' } },
    { type: 'block_stop', index: 0 },
    { type: 'block_start', index: 1, block: { type: 'text' } },
    { type: 'block_delta', index: 1, delta: { type: 'text', text: 'hello ' } },
    { type: 'block_delta', index: 1, delta: { type: 'text', text: 'world' } },
    { type: 'block_stop', index: 1 },
    { type: 'finish', finish: { reason: 'stop', raw: 'end_turn' } },
    { type: 'usage', usage: USAGE },
    { type: 'message_stop' },
  ];
}

let harness: SixLaneHarness;
let proxy: RecordingProxy;

beforeAll(async () => {
  harness = await startSixLaneHarness();
  proxy = await startRecordingProxy(harness.url);
});

afterAll(async () => {
  await proxy.close();
  await harness.close();
});

/** Scripts an Anthropic lane's answer (a Gemini lane's for Anthropic clients) and returns the relayed bytes after `call`. */
async function run(lane: ProtocolId, call: () => Promise<string>): Promise<{ text: string; raw: Buffer }> {
  harness.upstream.enqueue(upstreamStream(lane, reasoningThenText(lane)));
  const before = proxy.bodies.length;
  const text = await call();
  await expect.poll(() => proxy.bodies.length).toBe(before + 1);
  return { text, raw: proxy.bodies[before] as Buffer };
}

/** The comment block must come before the stream's last event and be a block of its own. */
function expectCommentBefore(raw: Buffer, terminator: string): string {
  const text = raw.toString('utf8');
  const match = /(^|\n): gateway-warnings ([^\n]*)\n\n/.exec(text);
  expect(match, text).not.toBeNull();
  expect(text.indexOf(terminator)).toBeGreaterThan(match!.index);
  return match![2] as string;
}

describe('a translated stream tells a streaming client what it dropped', () => {
  it('openai: the chunk iterator parses, the comment precedes [DONE]', async () => {
    const openai = openaiAt(proxy.url);
    const { text, raw } = await run('anthropic', async () => {
      let out = '';
      for await (const chunk of await openai.chat.completions.create({ model: 'm-anthropic', stream: true, messages: [{ role: 'user', content: 'hi' }] }))
        out += chunk.choices[0]?.delta.content ?? '';
      return out;
    });
    expect(text).toBe('hello world');
    expect(expectCommentBefore(raw, 'data: [DONE]')).toContain('dropped=reasoning');
  });

  it('openai: the stream helper (finalChatCompletion) parses too', async () => {
    const openai = openaiAt(proxy.url);
    const { text } = await run('anthropic', async () => {
      const done = await openai.chat.completions.stream({ model: 'm-anthropic', messages: [{ role: 'user', content: 'hi' }] }).finalChatCompletion();
      return done.choices[0]?.message.content ?? '';
    });
    expect(text).toBe('hello world');
  });

  it('responses: finalResponse parses, the comment precedes response.completed', async () => {
    const openai = openaiAt(proxy.url);
    // Gemini's thoughts (Claude's signed thinking now rides in encrypted_content and is not dropped).
    const { text, raw } = await run('gemini', async () => (await openai.responses.stream({ model: 'm-gemini', input: 'hi' }).finalResponse()).output_text);
    expect(text).toBe('hello world');
    expect(expectCommentBefore(raw, 'event: response.completed')).toMatch(/dropped=/);
  });

  it('anthropic: finalMessage parses, the comment precedes message_stop', async () => {
    const anthropic = anthropicAt(proxy.url);
    const { text, raw } = await run('gemini', async () => {
      const message = await anthropic.messages.stream({ model: 'm-gemini', max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] }).finalMessage();
      return message.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
    });
    expect(text).toBe('hello world');
    expect(expectCommentBefore(raw, 'event: message_stop')).toMatch(/dropped=content\[0\]/);
  });

  it('gemini (alt=sse): every chunk parses, the comment precedes the last chunk', async () => {
    const gemini = geminiAt(proxy.url);
    const { text, raw } = await run('anthropic', async () => {
      let out = '';
      for await (const chunk of await gemini.models.generateContentStream({ model: 'm-anthropic', contents: 'hi' })) out += chunk.text ?? '';
      return out;
    });
    expect(text).toBe('hello world');
    expect(expectCommentBefore(raw, '"finishReason"')).toMatch(/dropped=content\[0\]\.signature/);
  });

  it('cohere: chatStream parses, the comment precedes message-end', async () => {
    const cohere = cohereAt(proxy.url);
    const { text, raw } = await run('anthropic', async () => {
      let out = '';
      let ended = false;
      for await (const event of await cohere.chatStream({ model: 'm-anthropic', messages: [{ role: 'user', content: 'hi' }] })) {
        if (event.type === 'content-delta') out += event.delta?.message?.content?.text ?? '';
        if (event.type === 'message-end') ended = true;
      }
      return ended ? out : 'no message-end';
    });
    expect(text).toBe('hello world');
    expect(expectCommentBefore(raw, 'event: message-end')).toMatch(/dropped=content\[0\]\.signature/);
  });

  it('bedrock: the SDK reads every event, the metadata frame carries x-gateway-warnings', async () => {
    const bedrock = new BedrockRuntimeClient({
      region: 'us-east-1',
      endpoint: proxy.url,
      credentials: { accessKeyId: 'k', secretAccessKey: 'k' },
      requestHandler: new NodeHttpHandler(),
      maxAttempts: 1,
    });
    // Gemini's thoughts (Claude's signed thinking reaches a Bedrock client whole and is not dropped).
    const { text, raw } = await run('gemini', async () => {
      let out = '';
      let metadata = false;
      const answer = await bedrock.send(new ConverseStreamCommand({ modelId: 'm-gemini', messages: [{ role: 'user', content: [{ text: 'hi' }] }] }));
      for await (const event of answer.stream ?? []) {
        out += event.contentBlockDelta?.delta?.text ?? '';
        if (event.metadata !== undefined) metadata = event.metadata.usage?.totalTokens === 12;
      }
      return metadata ? out : 'no metadata';
    });
    expect(text).toBe('hello world');
    const frames = new EventStreamSplitter().push(raw).map(decodeFrame);
    const last = frames[frames.length - 1]!;
    expect(last.headers[':event-type']).toBe('metadata');
    expect(last.headers['x-gateway-warnings']).toMatch(/dropped=content\[0\]/);
  });

  it('a stream with nothing to report carries no note', async () => {
    const openai = openaiAt(proxy.url);
    harness.upstream.enqueue(
      upstreamStream(
        'anthropic',
        reasoningThenText('anthropic').filter((e) => !('index' in e) || e.index === 1),
      ),
    );
    const before = proxy.bodies.length;
    let out = '';
    for await (const chunk of await openai.chat.completions.create({ model: 'm-anthropic', stream: true, messages: [{ role: 'user', content: 'hi' }] }))
      out += chunk.choices[0]?.delta.content ?? '';
    expect(out).toBe('hello world');
    await expect.poll(() => proxy.bodies.length).toBe(before + 1);
    expect(proxy.bodies[before]!.toString('utf8')).not.toContain('gateway-warnings');
  });
});
