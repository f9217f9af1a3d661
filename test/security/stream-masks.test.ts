// The stream masks on their own: a key cut across reads, across events, over three or more pieces,
// and the false alarms (a delta that only ends like a key's beginning) which must leave the text
// exactly as the upstream wrote it.
import { describe, expect, it } from 'vitest';
import { decodeFrame, encodeFrame } from '../../server/framing/eventstream-frame.ts';
import { clientStreamMask } from '../../server/gateway/client-stream-mask.ts';
import { CREDENTIAL_MARKER, CredentialMask } from '../../server/gateway/credential-mask.ts';
import { StreamTextMasker } from '../../server/gateway/stream-text-masker.ts';
import type { StreamEvent } from '../../server/ir/index.ts';

const KEY = 'sk-proj-7fQ2mZx9Lw4Kp1Rt';
const mask = new CredentialMask([KEY]);
const sse = (text: string) =>
  `data: {"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":${JSON.stringify(text)}},"finish_reason":null}]}\n\n`;
const DONE = 'data: [DONE]\n\n';

/** Pushes each piece through an SSE mask and returns the text a client would join from the deltas. */
function relaySse(pieces: string[]): { text: string; bytes: string } {
  const m = clientStreamMask(mask, 'text/event-stream');
  const out = [...pieces.map((p) => m.push(Buffer.from(p))), m.end()].map((b) => b.toString('utf8')).join('');
  const text = out
    .split('\n\n')
    .filter((e) => e.startsWith('data: {'))
    .map((e) => (JSON.parse(e.slice(6)) as { choices: { delta: { content: string } }[] }).choices[0]!.delta.content)
    .join('');
  return { text, bytes: out };
}

describe('SSE: a key cut across text deltas', () => {
  // A beginning shorter than three characters ("s", "sk") is not held: it is the keys' public format.
  it.each([
    ['two events', ['The key is sk-proj-7f', 'Q2mZx9Lw4Kp1Rt.'], ''],
    ['three events', ['The key is sk-p', 'roj-7fQ2m', 'Zx9Lw4Kp1Rt.'], ''],
    ['three events, after its first character', ['The key is s', 'k-proj-7fQ2m', 'Zx9Lw4Kp1Rt.'], 's'],
    ['after its first two characters', ['The key is sk', '-proj-7fQ2mZx9Lw4Kp1Rt.'], 'sk'],
    ['one character an event', ['The key is ', ...KEY.split(''), '.'], 's'],
    ['whole in one event', [`The key is ${KEY}.`], ''],
  ])('%s', (_name, texts, shown) => {
    const { text, bytes } = relaySse([...texts.map(sse), DONE]);
    expect(text).toBe(`The key is ${shown}${CREDENTIAL_MARKER}.`);
    for (let i = 0; i + 8 <= KEY.length; i++) expect(bytes).not.toContain(KEY.slice(i, i + 8));
  });

  it('events cut between reads anywhere are the same', () => {
    const all = ['The key is sk-pr', 'oj-7fQ2mZx9Lw4Kp1Rt.'].map(sse).join('') + DONE;
    for (let at = 1; at < all.length; at++) expect(relaySse([all.slice(0, at), all.slice(at)]).text).toBe(`The key is ${CREDENTIAL_MARKER}.`);
  });

  it('a delta that only ends like the key begins keeps its text, in order', () => {
    const texts = ['it was', ' sk', 'y blue', ' sk-proj', ' is not it', ' sk-pr', '.', 'ok sk-p'];
    expect(relaySse([...texts.map(sse), DONE]).text).toBe(texts.join(''));
    expect(relaySse(texts.map(sse)).text).toBe(texts.join('')); // held bytes come back at the end too
  });

  it('an event without a cut key goes out as the very same bytes', () => {
    const m = clientStreamMask(mask, 'text/event-stream');
    const chunk = Buffer.from(sse('hello') + sse('world'));
    expect(m.push(chunk)).toBe(chunk);
  });

  it('held bytes go back into the next delta of the same block, without an extra event', () => {
    const { bytes } = relaySse([sse('one sk-pro'), sse('ud moment'), DONE]);
    expect(bytes.split('\n\n').filter((e) => e.startsWith('data: {'))).toHaveLength(2);
    expect(bytes).toContain('"content":"ud moment"'.replace('ud', 'sk-proud'));
  });
});

describe('other framings', () => {
  it('bytes: only a tail that is the beginning of the key waits for the next read', () => {
    const m = clientStreamMask(mask, 'application/json');
    expect(m.push(Buffer.from('[{"text":"The key is sk-pr')).toString()).toBe('[{"text":"The key is ');
    expect(m.push(Buffer.from('oj-7fQ2mZx9')).toString()).toBe('');
    expect(m.push(Buffer.from('Lw4Kp1Rt."}]')).toString()).toBe(`${CREDENTIAL_MARKER}."}]`);
    expect(m.push(Buffer.from('s')).toString()).toBe('');
    expect(m.end().toString()).toBe('s');
  });

  it('AWS event-stream: frames carrying a cut key are encoded again with valid CRCs', () => {
    const frame = (text: string) =>
      Buffer.from(
        encodeFrame(
          { ':event-type': 'contentBlockDelta', ':content-type': 'application/json', ':message-type': 'event' },
          JSON.stringify({ contentBlockIndex: 0, delta: { text } }),
        ),
      );
    const stop = Buffer.from(
      encodeFrame({ ':event-type': 'contentBlockStop', ':content-type': 'application/json', ':message-type': 'event' }, '{"contentBlockIndex":0}'),
    );
    const all = Buffer.concat([frame('The key is sk-proj-7fQ2'), frame('mZx9Lw4Kp1Rt.'), frame('sk'), frame('ip'), stop]);
    const m = clientStreamMask(mask, 'application/vnd.amazon.eventstream');
    const out = Buffer.concat([m.push(all.subarray(0, 30)), m.push(all.subarray(30, 100)), m.push(all.subarray(100)), m.end()]);
    let text = '';
    for (let at = 0; at < out.length; at += out.readUInt32BE(at)) {
      const decoded = decodeFrame(out.subarray(at, at + out.readUInt32BE(at))); // throws on a bad CRC
      const payload = JSON.parse(Buffer.from(decoded.payload).toString()) as { delta?: { text: string } };
      text += payload.delta?.text ?? '';
    }
    expect(text).toBe(`The key is ${CREDENTIAL_MARKER}.skip`);
  });
});

describe('IR text deltas (translated streams)', () => {
  const delta = (text: string): StreamEvent => ({ type: 'block_delta', index: 0, delta: { type: 'text', text } });
  const run = (texts: string[]) => {
    const masker = new StreamTextMasker(mask);
    const events = [...texts.map(delta), { type: 'block_stop', index: 0 } as const].flatMap((e) => masker.pass(e));
    return events.map((e) => (e.type === 'block_delta' && e.delta.type === 'text' ? e.delta.text : '')).join('');
  };
  it('a key cut over any number of deltas becomes the marker', () => {
    expect(run(['The key is sk-pr', 'oj-7fQ2m', 'Zx9Lw4Kp1Rt.'])).toBe(`The key is ${CREDENTIAL_MARKER}.`);
    expect(run(['The key is ', ...KEY.split(''), '.'])).toBe(`The key is ${CREDENTIAL_MARKER}.`);
  });
  it('text that only looks like a beginning is given back by the block end', () => {
    expect(run(['ask', ' sk-', 'proj'])).toBe('ask sk-proj');
  });
});
