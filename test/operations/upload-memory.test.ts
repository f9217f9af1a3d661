// A multipart upload streamed through holds no copy of itself: a 300 MB transcription upload goes
// through to an upstream that discards it while the process's resident memory grows by far less
// than the upload (measured: about 86 MB for 200 MB and for 480 MB alike, the same whatever the
// size: sockets' and streams' buffers, not the body). A gateway that buffered would grow by 300 MB.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startHarness, type Harness } from '../support/gateway-harness.ts';

const UPLOAD_BYTES = 300 * 1024 * 1024;
let h: Harness;
let received = 0;
const sink = createServer((req, res) => {
  req.on('data', (c: Buffer) => void (received += c.length));
  req.on('end', () => {
    res.setHeader('content-type', 'application/json');
    res.end('{"text":"ok","usage":{"type":"duration","seconds":1}}');
  });
});

beforeAll(async () => {
  await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
  const { port } = sink.address() as AddressInfo;
  h = await startHarness({
    extraCatalogYaml: `sink: { protocol: openai, base_url: http://127.0.0.1:${port}/v1, auth: none, display_name: Discarding upstream, docs_url: https://example.com }\n`,
    extraModelsYaml: '  sink-whisper: { provider: sink, model: whisper-1, operations: [audio] }\n',
    extraYaml: 'limits: { max_request_bytes: 419430400, max_request_bytes_in_flight: 838860800 }\n',
  });
});
afterAll(async () => {
  await h.close();
  sink.close();
});

it('a 300 MB upload streams through with resident memory growing by well under its size', async () => {
  const boundary = 'uploadmemoryboundary';
  const chunk = new Uint8Array(256 * 1024).fill(3);
  const enc = new TextEncoder();
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(
        enc.encode(
          `--${boundary}\r\nContent-Disposition: form-data; name="model"\r\n\r\nsink-whisper\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="long.wav"\r\nContent-Type: audio/wav\r\n\r\n`,
        ),
      );
    },
    pull(controller) {
      if (sent >= UPLOAD_BYTES) {
        controller.enqueue(enc.encode(`\r\n--${boundary}--\r\n`));
        controller.close();
        return;
      }
      controller.enqueue(chunk);
      sent += chunk.length;
    },
  });
  // The gateway's kept config-loader thread warms up after start (config/config-loader.ts): its
  // isolate's memory is not the upload's, so the base is taken once resident memory has settled.
  const base = await settledRss();
  let peak = base;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 10);
  try {
    const res = await fetch(`${h.url}/v1/audio/transcriptions`, {
      method: 'POST',
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      body,
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(200);
  } finally {
    clearInterval(sampler);
  }
  expect(received).toBeGreaterThan(UPLOAD_BYTES);
  expect(peak - base).toBeLessThan(UPLOAD_BYTES / 2);
}, 60_000);

/** Resident memory once it has stopped moving (within 2 MB over half a second), or after 10 s. */
async function settledRss(): Promise<number> {
  const deadline = Date.now() + 10_000;
  let last = process.memoryUsage().rss;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const now = process.memoryUsage().rss;
    if (Math.abs(now - last) < 2 * 1024 * 1024 || Date.now() > deadline) return now;
    last = now;
  }
}
