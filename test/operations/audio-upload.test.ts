// Audio transcription and translation: multipart/form-data uploads streamed through to the
// upstream, not buffered. The official SDK uploads a generated WAV (model rewritten inside the
// multipart body, the file's bytes intact, wherever the model part comes); the key is charged per
// audio second from the upstream's reported duration, per token from its usage, or on an estimate
// from the bytes (said so); a streamed upload reaches the upstream before it has finished; one over
// limits.max_request_bytes is a 413 while it streams; a failing lane fails over with the upload replayed.
import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/gateway-harness.ts';
import { multipartField, TRANSCRIPT_SECONDS, TRANSCRIPT_USAGE } from '../support/media-replies.ts';
import { RecordCollector } from '../support/record-collector.ts';
import { toneWav } from '../support/wav-file.ts';

const LIMIT = 1024 * 1024;
let h: Harness;
const records = new RecordCollector();
const wav = toneWav(10); // 320,044 bytes

beforeAll(async () => {
  h = await startHarness({
    observers: [records],
    maxRequestBytes: LIMIT,
    extraModelsYaml:
      '  whisper: { provider: openai, model: whisper-1, operations: [audio], operation_prices: { audio: { per_audio_second: 0.0001 } } }\n' +
      '  transcribe: { provider: openai, model: gpt-4o-transcribe, operations: [audio], operation_prices: { audio: { input: 6 } } }\n' +
      '  whisper-b: { provider: openai, model: whisper-backup, operations: [audio], operation_prices: { audio: { per_audio_second: 0.0001 } } }\n',
    extraYaml: 'db_path: ./gateway.db\ngovernance: on\npools:\n  stt: { members: [ { model: whisper, weight: 1000 }, { model: whisper-b, weight: 1 } ] }\n',
  });
});
afterAll(() => h.close());
beforeEach(() => {
  h.upstream.reset();
  records.clear();
});

async function budgetedKey(): Promise<{ id: string; secret: string; client: OpenAI }> {
  const res = await fetch(`${h.adminUrl}/api/v1/admin/keys`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ budget_cents: 1000 }),
  });
  const key = (await res.json()) as { id: string; secret: string };
  return { ...key, client: new OpenAI({ apiKey: key.secret, baseURL: `${h.url}/v1`, maxRetries: 0 }) };
}
const spentBy = (id: string) => h.gateway.governance!.listKeys().find((k) => k.id === id)!.spentMicrocents;
async function theRecord() {
  await records.atLeast(1);
  return records.records[records.records.length - 1]!;
}

describe('transcriptions with the official SDK', () => {
  it('verbose_json: the WAV goes up intact with the model rewritten, charged the reported duration × the per-second price', async () => {
    const { id, client } = await budgetedKey();
    const answer = await client.audio.transcriptions.create({
      file: await toFile(wav, 'speech.wav', { type: 'audio/wav' }),
      model: 'whisper',
      response_format: 'verbose_json',
    });
    expect(answer.duration).toBe(TRANSCRIPT_SECONDS);
    expect(answer.text).toMatch(/\(whisper-1\)$/); // the upstream saw the lane's model
    const sent = h.lastRequest();
    expect(sent.path).toBe('/v1/audio/transcriptions');
    expect(sent.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(multipartField(sent, 'model')).toBe('whisper-1');
    expect(sent.rawBody.includes(wav)).toBe(true);
    expect(Number(sent.headers['content-length'])).toBe(sent.rawBody.length); // the length was recomputed for the new model
    // The answer's billed seconds (usage.seconds 9, over the 8.47 s duration) × 0.0001 USD = 0.0009 USD = 90,000 µ¢.
    expect(spentBy(id)).toBe(90_000n);
    expect(await theRecord()).toMatchObject({ operation: 'audio', model: 'whisper', status: 200, costMicrocents: 90_000n });
  });

  it('json from gpt-4o-transcribe: its token usage charged at the per-token price', async () => {
    const { id, client } = await budgetedKey();
    const answer = await client.audio.transcriptions.create({ file: await toFile(wav, 'speech.wav'), model: 'transcribe' });
    expect(answer.text).toMatch(/gpt-4o-transcribe/);
    // (14 + 45) tokens × 6 USD per million = 59 × 600 µ¢.
    expect(spentBy(id)).toBe(BigInt((TRANSCRIPT_USAGE.input_tokens + TRANSCRIPT_USAGE.output_tokens) * 600));
    expect(await theRecord()).toMatchObject({ operation: 'audio', usage: { inputTokens: 14, outputTokens: 45 } });
  });

  it("text answers report nothing: the seconds are estimated from the upload's bytes (128 kbit/s), and the record says so", async () => {
    const { id, client } = await budgetedKey();
    const text = await client.audio.translations.create({ file: await toFile(wav, 'speech.wav'), model: 'whisper', response_format: 'text' });
    expect(String(text)).toMatch(/whisper-1/);
    expect(h.lastRequest().path).toBe('/v1/audio/translations');
    const bytes = h.lastRequest().rawBody.length - 'whisper-1'.length + 'whisper'.length; // the client's upload
    const seconds = Math.ceil(bytes / 16_000);
    expect(spentBy(id)).toBe(BigInt(seconds) * 10_000n);
    const record = await theRecord();
    expect(record.warnings?.[0]?.kind).toBe('estimated');
  });

  it("an upload declared over the limit: 413 in OpenAI's shape, nothing sent upstream", async () => {
    const { client } = await budgetedKey();
    const big = await client.audio.transcriptions.create({ file: await toFile(toneWav(40), 'long.wav'), model: 'whisper' }).catch((e: unknown) => e);
    expect((big as InstanceType<typeof OpenAI.APIError>).status).toBe(413);
    expect(h.upstream.requests).toHaveLength(0);
  });

  it('a pool: the first lane fails (500), the upload is replayed whole to the next', async () => {
    const { client } = await budgetedKey();
    h.upstream.enqueue({ status: 500, json: { error: { message: 'The server had an error', type: 'server_error', param: null, code: null } } });
    const answer = await client.audio.transcriptions.create({ file: await toFile(wav, 'speech.wav'), model: 'stt', response_format: 'verbose_json' });
    expect(answer.text).toMatch(/whisper-backup/);
    expect(h.upstream.requests).toHaveLength(2);
    expect(h.upstream.requests[1]!.rawBody.includes(wav)).toBe(true);
    expect(multipartField(h.upstream.requests[0]!, 'model')).toBe('whisper-1');
    expect(await theRecord()).toMatchObject({ operation: 'audio', pool: 'stt', lane: 'whisper-b', status: 200 });
  });
});

/** A multipart body written by the test piece by piece: the model first or last, the file in chunks. */
function streamedUpload(parts: { modelFirst: boolean; fileBytes: number; chunk: number; waitAfter?: { bytes: number; until: () => boolean } }) {
  const boundary = '----gatewaytest7MA4YWxkTrZu0gW';
  const model = `--${boundary}\r\nContent-Disposition: form-data; name="model"\r\n\r\nwhisper\r\n`;
  const fileHead = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="long.wav"\r\nContent-Type: audio/wav\r\n\r\n`;
  const tail = `\r\n--${boundary}--\r\n`;
  const enc = new TextEncoder();
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      if (parts.modelFirst) controller.enqueue(enc.encode(model));
      controller.enqueue(enc.encode(fileHead));
      for (let at = 0; at < parts.fileBytes; at += parts.chunk) {
        if (parts.waitAfter !== undefined && sent >= parts.waitAfter.bytes) {
          const deadline = Date.now() + 5000;
          while (!parts.waitAfter.until() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
        }
        const size = Math.min(parts.chunk, parts.fileBytes - at);
        controller.enqueue(new Uint8Array(size).fill(7));
        sent += size;
      }
      if (!parts.modelFirst) controller.enqueue(enc.encode(`\r\n${model.slice(0, -2)}`)); // the model part last, its CRLF the tail's
      controller.enqueue(enc.encode(tail));
      controller.close();
    },
  });
  return { body, contentType: `multipart/form-data; boundary=${boundary}` };
}

describe('streamed through, not buffered', () => {
  it("the upstream receives the upload's first bytes before the client has sent the rest", async () => {
    const { secret } = await budgetedKey();
    // The client holds back the rest of its file until the upstream has seen bytes: a gateway
    // that buffered the upload would wait for the rest and the test would time out.
    let upstreamSawBytesEarly = false;
    const upload = streamedUpload({
      modelFirst: true,
      fileBytes: 600 * 1024,
      chunk: 32 * 1024,
      waitAfter: { bytes: 256 * 1024, until: () => (upstreamSawBytesEarly = h.upstream.bytesReceived > 0) },
    });
    const res = await fetch(`${h.url}/v1/audio/transcriptions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': upload.contentType },
      body: upload.body,
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(200);
    expect(upstreamSawBytesEarly).toBe(true);
    expect(h.lastRequest().rawBody.length).toBeGreaterThan(600 * 1024);
  });

  it('an undeclared-length upload that passes the limit while streaming: 413, the upstream call abandoned', async () => {
    const { secret } = await budgetedKey();
    const before = h.upstream.bytesReceived;
    const upload = streamedUpload({ modelFirst: true, fileBytes: LIMIT + 256 * 1024, chunk: 64 * 1024 });
    const res = await fetch(`${h.url}/v1/audio/transcriptions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': upload.contentType },
      body: upload.body,
      duplex: 'half',
    } as RequestInit).catch((e: unknown) => e);
    expect(res).toBeInstanceOf(Response);
    expect((res as Response).status).toBe(413);
    expect(((await (res as Response).json()) as { error: { code: string } }).error.code).toBe('request_too_large');
    expect(await theRecord()).toMatchObject({ operation: 'audio', status: 413 });
    // The upstream had been receiving the upload as it came, and its call was cut, never completed.
    expect(h.upstream.bytesReceived - before).toBeGreaterThan(0);
    expect(h.upstream.requests).toHaveLength(0);
  });

  it('the model part after the file: found anyway, the file held until then and sent on', async () => {
    const { secret } = await budgetedKey();
    const upload = streamedUpload({ modelFirst: false, fileBytes: 200 * 1024, chunk: 64 * 1024 });
    const res = await fetch(`${h.url}/v1/audio/transcriptions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': upload.contentType },
      body: upload.body,
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(200);
    expect(multipartField(h.lastRequest(), 'model')).toBe('whisper-1');
  });

  it("not multipart, or no model part: 400 in OpenAI's shape", async () => {
    const { secret } = await budgetedKey();
    const plain = await fetch(`${h.url}/v1/audio/transcriptions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(plain.status).toBe(400);
    expect(((await plain.json()) as { error: { code: string } }).error.code).toBe('invalid_multipart');
    const boundary = 'b0undary';
    const noModel = await fetch(`${h.url}/v1/audio/transcriptions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
      body: `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\n\r\nRIFF\r\n--${boundary}--\r\n`,
    });
    expect(noModel.status).toBe(400);
    expect(((await noModel.json()) as { error: { param: string } }).error.param).toBe('model');
    expect(h.upstream.requests).toHaveLength(0);
  });
});
