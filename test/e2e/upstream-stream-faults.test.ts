// Faults of an upstream stream, as clients see them: an endless line (the framers hold at most
// 16 MiB of one event) fails the attempt as a lane fault, by failover before commit and by the
// protocol's error event after; a stream whose connection closes mid-way says so.
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_STREAM_EVENT_CHARS } from '../../server/framing/stream-event-limit.ts';
import { startHarness, type Harness } from '../support/gateway-harness.ts';
import { openaiStreamEvents } from '../support/openai-sse.ts';

let h: Harness;
let openai: OpenAI;
let anthropic: Anthropic;

beforeAll(async () => {
  h = await startHarness({
    extraModelsYaml: '  backup: { provider: openai, model: backup-upstream }\n',
    extraYaml: 'pools:\n  chat: { members: [ { model: gpt, weight: 100 }, { model: backup, weight: 1 } ] }\n',
  });
  openai = new OpenAI({ baseURL: `${h.url}/v1`, apiKey: 'sk-client', maxRetries: 0 });
  anthropic = new Anthropic({ baseURL: h.url, apiKey: 'sk-client', maxRetries: 0 });
});
afterAll(() => h.close());

/** The start of a `data:` line that never ends: 64 KiB pieces, well past the limit in all. */
function endlessLine(): Buffer[] {
  const piece = Buffer.alloc(64 * 1024, 'a');
  const pieces = Math.ceil((MAX_STREAM_EVENT_CHARS * 1.5) / piece.length);
  return [
    Buffer.from('data: {"id":"x","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"'),
    ...Array.from({ length: pieces }, () => piece),
  ];
}

const [roleChunk, firstContent] = openaiStreamEvents(['before the endless line ']);

describe('an endless line from the upstream', () => {
  it('before commit: the attempt fails as a lane fault and the next lane answers', async () => {
    h.upstream.reset();
    h.upstream.enqueue({ events: [roleChunk!, ...endlessLine()] });
    let text = '';
    for await (const chunk of await openai.chat.completions.create({ model: 'chat', stream: true, messages: [{ role: 'user', content: 'hi' }] }))
      text += chunk.choices[0]?.delta.content ?? '';
    expect(text.length).toBeGreaterThan(0); // the backup's echo
    expect(h.upstream.requests.map((r) => (r.json as { model: string }).model)).toEqual(['gpt-4.1-mini', 'backup-upstream']);
    expect(h.upstream.requests[0]?.abandoned).toBe(true); // the gateway stopped reading
  }, 60_000);

  it('after commit, same protocol: the stream ends with an OpenAI error event naming the limit', async () => {
    h.upstream.enqueue({ events: [roleChunk!, firstContent!, ...endlessLine()] });
    let text = '';
    const reading = (async () => {
      for await (const chunk of await openai.chat.completions.create({ model: 'gpt', stream: true, messages: [{ role: 'user', content: 'hi' }] }))
        text += chunk.choices[0]?.delta.content ?? '';
    })();
    await expect(reading).rejects.toThrow(/longer than 16 MiB/);
    expect(text).toBe('before the endless line ');

    // On the wire: whole lines only (the unfinished one is never relayed), then the error event.
    h.upstream.enqueue({ events: [roleChunk!, firstContent!, ...endlessLine()] });
    const raw = await fetch(`${h.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk-client', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    });
    const body = await raw.text();
    expect(body.length).toBeLessThan(64 * 1024);
    const events = body.trim().split(/\n\n+/);
    expect(events.slice(0, 2)).toEqual([roleChunk!.trim(), firstContent!.trim()]);
    expect(JSON.parse(events[2]!.replace(/^data: /, ''))).toMatchObject({
      error: { code: 'upstream_event_too_large', message: expect.stringContaining('longer than 16 MiB') },
    });
  }, 60_000);

  it('after commit, translated: an Anthropic client gets its own error event', async () => {
    h.upstream.enqueue({ events: [roleChunk!, firstContent!, ...endlessLine()] });
    const stream = anthropic.messages.stream({ model: 'gpt', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] });
    let text = '';
    stream.on('text', (t) => (text += t));
    await expect(stream.finalMessage()).rejects.toThrow(/longer than 16 MiB/);
    expect(text).toBe('before the endless line ');
  }, 60_000);
});

describe('a stream whose upstream connection closes mid-way', () => {
  it('says the upstream closed the connection, not that it is unreachable', async () => {
    h.upstream.enqueue({ events: openaiStreamEvents(['one ', 'two ', 'three ']), cutAfter: 3 });
    const stream = anthropic.messages.stream({ model: 'gpt', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] });
    stream.on('text', () => {});
    const error = await stream.finalMessage().then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    expect(error?.message).toContain('upstream openai closed the connection before the end of its stream');
    expect(error?.message).not.toContain('unreachable');
  });
});
