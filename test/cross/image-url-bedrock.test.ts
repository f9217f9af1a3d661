// Image URLs to a Bedrock lane (Bedrock takes bytes only): the gateway fetches the image and the
// upstream sees its bytes. The image host is on loopback, which media_fetch refuses by default, so
// one gateway allows private addresses (as only a test should) and another keeps the default.
import Anthropic from '@anthropic-ai/sdk';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatResponse } from '../../server/ir/index.ts';
import { startSixLaneHarness, upstreamJson, type SixLaneHarness } from '../support/six-lane-harness.ts';

const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cf00000301010018dd8db00000000049454e44ae426082',
  'hex',
);
const ANSWER: ChatResponse = {
  id: 'r1',
  model: 'upstream',
  content: [{ type: 'text', text: 'a cat' }],
  finish: { reason: 'stop', raw: null },
  usage: { inputTokens: 3, outputTokens: 2, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 },
};

let images: Server;
let imageUrl: string;
let allowing: SixLaneHarness;
let defaults: SixLaneHarness;

beforeAll(async () => {
  images = createServer((req, res) => {
    if (req.url === '/cat.png' || req.url === '/avatar') res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
    else res.writeHead(200, { 'content-type': 'text/html' }).end('<html></html>');
  });
  await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', resolve));
  imageUrl = `http://127.0.0.1:${(images.address() as AddressInfo).port}`;
  allowing = await startSixLaneHarness({ extraYaml: 'media_fetch: { allow_private: true, max_bytes: 65536 }' });
  defaults = await startSixLaneHarness();
});

afterAll(async () => {
  await allowing.close();
  await defaults.close();
  images.closeAllConnections();
  await new Promise<void>((resolve) => images.close(() => resolve()));
});

type BedrockImageBlock = { image: { format: string; source: { bytes: string } } };

function sentImages(h: SixLaneHarness): BedrockImageBlock[] {
  const body = h.lastRequest().json as { messages: { content: object[] }[] };
  return body.messages.flatMap((m) => m.content).filter((b): b is BedrockImageBlock => 'image' in b);
}

describe('image URLs to a Bedrock lane', () => {
  it('openai SDK: the image is fetched and sent as bytes, stream and not', async () => {
    const openai = new OpenAI({ apiKey: 'k', baseURL: `${allowing.url}/v1`, maxRetries: 0 });
    const messages = [
      {
        role: 'user' as const,
        content: [
          { type: 'text' as const, text: 'What is this?' },
          { type: 'image_url' as const, image_url: { url: `${imageUrl}/cat.png` } },
        ],
      },
    ];
    allowing.upstream.enqueue(upstreamJson('bedrock', ANSWER));
    const out = await openai.chat.completions.create({ model: 'm-bedrock', messages });
    expect(out.choices[0]?.message.content).toBe('a cat');
    const [image] = sentImages(allowing);
    expect(image?.image.format).toBe('png');
    expect(Buffer.from(image!.image.source.bytes, 'base64').equals(PNG)).toBe(true);
  });

  it('anthropic SDK: a url image source in a tool result is fetched too', async () => {
    const anthropic = new Anthropic({ apiKey: 'k', baseURL: allowing.url, maxRetries: 0 });
    allowing.upstream.enqueue(upstreamJson('bedrock', ANSWER));
    await anthropic.messages.create({
      model: 'm-bedrock',
      max_tokens: 100,
      messages: [
        { role: 'user', content: 'Take a photo' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'tu_1', name: 'camera', input: {} }] },
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 'tu_1', content: [{ type: 'image', source: { type: 'url', url: `${imageUrl}/cat.png` } }] }],
        },
      ],
    });
    const body = JSON.stringify(allowing.lastRequest().json);
    expect(body).toContain(PNG.toString('base64'));
    expect(body).not.toContain(imageUrl);
  });

  it('a fetch refused for its content type is a 400 naming the field, in the client protocol', async () => {
    const openai = new OpenAI({ apiKey: 'k', baseURL: `${allowing.url}/v1`, maxRetries: 0 });
    const before = allowing.upstream.requests.length;
    const error = await openai.chat.completions
      .create({
        model: 'm-bedrock',
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'hi' },
              { type: 'image_url', image_url: { url: `${imageUrl}/page.html` } },
            ],
          },
        ],
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('messages[0].content[1].source.url');
    expect((error as Error).message).toMatch(/content type is "text\/html"/);
    expect(allowing.upstream.requests.length).toBe(before);
  });

  it('by default a loopback image host is refused: 400 naming the field, nothing sent upstream', async () => {
    const openai = new OpenAI({ apiKey: 'k', baseURL: `${defaults.url}/v1`, maxRetries: 0 });
    const error = await openai.chat.completions
      .create({ model: 'm-bedrock', messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: `${imageUrl}/cat.png` } }] }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('messages[0].content[0].source.url');
    expect((error as Error).message).toMatch(/loopback address/);
    expect(defaults.upstream.requests.length).toBe(0);
  });

  it('other lanes still get the URL itself (their provider fetches it)', async () => {
    const openai = new OpenAI({ apiKey: 'k', baseURL: `${defaults.url}/v1`, maxRetries: 0 });
    defaults.upstream.enqueue(upstreamJson('anthropic', ANSWER));
    await openai.chat.completions.create({
      model: 'm-anthropic',
      messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.com/cat.png' } }] }],
    });
    expect(JSON.stringify(defaults.lastRequest().json)).toContain('"url":"https://example.com/cat.png"');
  });
});

describe('image URLs to a Gemini lane', () => {
  it('a URL whose extension names the type goes as fileData; one without is fetched and sent inline', async () => {
    const openai = new OpenAI({ apiKey: 'k', baseURL: `${allowing.url}/v1`, maxRetries: 0 });
    allowing.upstream.enqueue(upstreamJson('gemini', ANSWER));
    await openai.chat.completions.create({
      model: 'm-gemini',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image_url', image_url: { url: 'https://example.com/photo.png' } },
            { type: 'image_url', image_url: { url: `${imageUrl}/cat.png?size=large#x` } },
            { type: 'image_url', image_url: { url: `${imageUrl}/avatar` } },
          ],
        },
      ],
    });
    const parts = (allowing.lastRequest().json as { contents: { parts: object[] }[] }).contents[0]!.parts;
    expect(parts[0]).toEqual({ fileData: { fileUri: 'https://example.com/photo.png', mimeType: 'image/png' } });
    expect(parts[1]).toEqual({ fileData: { fileUri: `${imageUrl}/cat.png?size=large#x`, mimeType: 'image/png' } });
    expect(parts[2]).toEqual({ inlineData: { mimeType: 'image/png', data: PNG.toString('base64') } });
  });
});
