// The byte-level pieces of asking an OpenAI upstream for stream usage the client did not ask
// for: the request edit (only `stream_options` touched) and the strip that gives the client the
// stream it would have had, at every split of the upstream's reads.
import { describe, expect, it } from 'vitest';
import { openaiChatStreamEvents } from '../../server/demo/openai-replies.ts';
import { OpenAIUsageStrip } from '../../server/framing/openai-usage-strip.ts';
import { requestStreamUsage } from '../../server/protocols/openai/stream-usage-request.ts';

describe('requestStreamUsage', () => {
  it.each([
    [
      'absent: inserted first, the rest byte for byte',
      '{"model":"m", "stream":true,\n "messages":[]}',
      '{"stream_options":{"include_usage":true},"model":"m", "stream":true,\n "messages":[]}',
      false,
    ],
    [
      'present without include_usage: other members kept',
      '{"model":"m","stream_options":{"include_obfuscation":false},"stream":true}',
      '{"model":"m","stream_options":{"include_obfuscation":false,"include_usage":true},"stream":true}',
      false,
    ],
    ['include_usage false', '{"stream_options": {"include_usage": false},"model":"m"}', '{"stream_options": {"include_usage":true},"model":"m"}', false],
    ['null', '{"model":"m","stream_options":null}', '{"model":"m","stream_options":{"include_usage":true}}', false],
    [
      'the client asked: unchanged',
      '{"model":"m","stream_options":{ "include_usage" : true }}',
      '{"model":"m","stream_options":{ "include_usage" : true }}',
      true,
    ],
  ])('%s', (_, body, expected, clientAsked) => {
    const out = requestStreamUsage(Buffer.from(body));
    expect(out.body.toString()).toBe(expected);
    expect(out.clientAsked).toBe(clientAsked);
    expect(JSON.parse(out.body.toString()).stream_options.include_usage).toBe(true);
  });
});

describe('OpenAIUsageStrip', () => {
  const spec = {
    id: 'chatcmpl-u',
    model: 'gpt-4.1-mini',
    text: 'a "usage":null inside text, and "choices":[] too',
    created: 1_700_000_000,
    usage: { prompt_tokens: 11, completion_tokens: 5 },
  };
  const withUsage = Buffer.from(openaiChatStreamEvents(spec, { includeUsage: true, textPieces: 3 }).join(''));
  const without = openaiChatStreamEvents(spec, { includeUsage: false, textPieces: 3 }).join('');

  it('gives back, byte for byte, the stream without include_usage, however the reads are split', () => {
    for (let cut = 0; cut <= withUsage.length; cut++) {
      const strip = new OpenAIUsageStrip();
      const out = Buffer.concat([strip.push(withUsage.subarray(0, cut)), strip.push(withUsage.subarray(cut)), strip.end()]).toString();
      expect(out, `split at ${cut}`).toBe(without);
    }
  });

  it('one byte a read', () => {
    const strip = new OpenAIUsageStrip();
    const parts: Buffer[] = [];
    for (let i = 0; i < withUsage.length; i++) parts.push(strip.push(withUsage.subarray(i, i + 1)));
    parts.push(strip.end());
    expect(Buffer.concat(parts).toString()).toBe(without);
  });

  it('a stream cut mid-event keeps the cut event as it came', () => {
    const strip = new OpenAIUsageStrip();
    const cut = withUsage.subarray(0, withUsage.indexOf('\n\n') + 10);
    expect(Buffer.concat([strip.push(cut), strip.end()]).toString()).toBe(
      `${without.slice(0, without.indexOf('\n\n') + 2)}${cut.subarray(cut.indexOf('\n\n') + 2).toString()}`,
    );
  });

  it('a CR LF framed stream is stripped event by event too, not held to its end', () => {
    const crlf = (text: string) => text.replaceAll('\n\n', '\r\n\r\n');
    const strip = new OpenAIUsageStrip();
    const events = openaiChatStreamEvents(spec, { includeUsage: true, textPieces: 3 }).map(crlf);
    const firstOut = strip.push(Buffer.from(events[0]!)).toString();
    expect(firstOut).toBe(crlf(openaiChatStreamEvents(spec, { includeUsage: false, textPieces: 3 })[0]!));
    const rest = Buffer.concat([...events.slice(1).map((e) => strip.push(Buffer.from(e))), strip.end()]).toString();
    expect(firstOut + rest).toBe(crlf(without));
  });
});
