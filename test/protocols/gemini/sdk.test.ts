// The official @google/genai SDK (3.1.0) against a local server that answers with this codec's
// encoder output for fixed IRs: what the SDK parses must be what the IR said. The requests the SDK
// sends are decoded with this codec too, so both directions meet a real client.
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, FunctionCallingConfigMode, GoogleGenAI, Type } from '@google/genai';
import { gatewayError, type ChatResponse, type StreamEvent } from '../../../server/ir/index.ts';
import { codec, encodeEvents } from './support.ts';

const USAGE = { inputTokens: 120, outputTokens: 45, cacheReadTokens: 64, cacheWriteTokens: 0, reasoningTokens: 30 };

const TEXT_RESPONSE: ChatResponse = {
  id: 'resp_text',
  model: 'gemini-2.5-flash',
  content: [
    { type: 'reasoning', text: 'Thinking about the sea.', origin: 'gemini', signature: 'c2lnLXRob3VnaHQ=' },
    { type: 'text', text: 'Grey waves fold and break.', signature: { origin: 'gemini', value: 'c2lnLXRleHQ=' } },
  ],
  finish: { reason: 'length', raw: 'max_tokens' },
  usage: USAGE,
};

const TOOL_RESPONSE: ChatResponse = {
  id: 'resp_tools',
  model: 'gemini-2.5-flash',
  content: [
    { type: 'tool_call', id: 'call_1', name: 'get_weather', arguments: '{"city": "Paris"}' },
    { type: 'tool_call', id: 'call_2', name: 'get_weather', arguments: '{"city":"Tokyo"}' },
  ],
  finish: { reason: 'tool_calls', raw: 'tool_use' },
  usage: USAGE,
};

const STREAM: StreamEvent[] = [
  { type: 'message_start', id: 'resp_stream', model: 'gemini-2.5-flash', usage: { ...USAGE, outputTokens: 0, reasoningTokens: 0 } },
  { type: 'block_start', index: 0, block: { type: 'text' } },
  { type: 'block_delta', index: 0, delta: { type: 'text', text: '東京は' } },
  { type: 'block_delta', index: 0, delta: { type: 'text', text: '晴れ🌸' } },
  { type: 'block_stop', index: 0 },
  { type: 'block_start', index: 1, block: { type: 'tool_call', id: 'call_9', name: 'get_time' } },
  { type: 'block_delta', index: 1, delta: { type: 'tool_arguments', partialJson: '{"tz":' } },
  { type: 'block_delta', index: 1, delta: { type: 'tool_arguments', partialJson: '"Asia/Tokyo"}' } },
  { type: 'block_stop', index: 1 },
  { type: 'finish', finish: { reason: 'tool_calls', raw: 'tool_calls' } },
  { type: 'usage', usage: USAGE },
  { type: 'message_stop' },
];

const STREAM_WITH_ERROR: StreamEvent[] = [...STREAM.slice(0, 3), { type: 'error', error: gatewayError('overloaded', 'Overloaded') }];

interface Seen {
  readonly path: string;
  readonly body: Record<string, unknown>;
}

let server: Server;
let baseUrl: string;
const seen: Seen[] = [];

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const path = req.url ?? '';
  const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
  seen.push({ path, body });
  const prompt = JSON.stringify(body.contents);
  if (prompt.includes('bad request')) {
    const envelope = codec.encodeError(gatewayError('invalid_request', 'contents[0]: not acceptable', { param: 'contents[0]' }));
    res.writeHead(envelope.status, envelope.headers).end(envelope.body);
  } else if (path.includes(':streamGenerateContent')) {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(encodeEvents(prompt.includes('fail midway') ? STREAM_WITH_ERROR : STREAM));
  } else {
    const ir = prompt.includes('weather') ? TOOL_RESPONSE : TEXT_RESPONSE;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(codec.encodeResponse(ir, { streamUsage: false }).body));
  }
}

beforeAll(async () => {
  server = createServer((req, res) => void handle(req, res));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.close();
  await once(server, 'close');
});

const client = () => new GoogleGenAI({ apiKey: 'k', httpOptions: { baseUrl, retryOptions: { attempts: 1 } } });

/** The model and streaming as the gateway's router takes them from the path. */
function originOf(path: string) {
  const match = /\/models\/([^:/]+):(generateContent|streamGenerateContent)/.exec(path);
  if (match === null) throw new Error(`unexpected path ${path}`);
  return { pathModel: decodeURIComponent(match[1]!), pathStream: match[2] === 'streamGenerateContent' };
}

describe('@google/genai reads what the encoder writes', () => {
  it('generateContent: text, thought parts with signatures, finish reason and usage', async () => {
    const response = await client().models.generateContent({ model: 'gemini-2.5-flash', contents: 'Write about the sea.' });
    expect(response.text).toBe('Grey waves fold and break.');
    expect(response.responseId).toBe('resp_text');
    expect(response.modelVersion).toBe('gemini-2.5-flash');
    const candidate = response.candidates?.[0];
    expect(candidate?.finishReason).toBe('MAX_TOKENS');
    expect(candidate?.content?.parts).toEqual([
      { text: 'Thinking about the sea.', thought: true, thoughtSignature: 'c2lnLXRob3VnaHQ=' },
      { text: 'Grey waves fold and break.', thoughtSignature: 'c2lnLXRleHQ=' },
    ]);
    // promptTokenCount includes the cache; candidatesTokenCount excludes the thoughts.
    expect(response.usageMetadata).toEqual({
      promptTokenCount: 120,
      cachedContentTokenCount: 64,
      candidatesTokenCount: 15,
      thoughtsTokenCount: 30,
      totalTokenCount: 165,
    });
  });

  it('generateContent: parallel function calls with object arguments; the request the SDK sent decodes', async () => {
    const response = await client().models.generateContent({
      model: 'gemini-2.5-flash',
      contents: 'What is the weather in Paris and Tokyo?',
      config: {
        systemInstruction: 'Use the tools.',
        maxOutputTokens: 200,
        tools: [
          {
            functionDeclarations: [{ name: 'get_weather', parameters: { type: Type.OBJECT, properties: { city: { type: Type.STRING } }, required: ['city'] } }],
          },
        ],
        toolConfig: { functionCallingConfig: { mode: FunctionCallingConfigMode.ANY, allowedFunctionNames: ['get_weather'] } },
      },
    });
    expect(response.functionCalls).toEqual([
      { name: 'get_weather', args: { city: 'Paris' } },
      { name: 'get_weather', args: { city: 'Tokyo' } },
    ]);
    expect(response.candidates?.[0]?.finishReason).toBe('STOP');

    const sent = seen.at(-1)!;
    expect(sent.path).toBe('/v1/models/gemini-2.5-flash:generateContent'); // genai 3.x speaks v1
    const ir = codec.decodeRequest(sent.body, originOf(sent.path));
    expect(ir).toMatchObject({
      model: 'gemini-2.5-flash',
      stream: false,
      maxTokens: 200,
      unmapped: [],
      toolChoice: { type: 'tool', name: 'get_weather' },
      tools: [{ name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } }],
    });
    expect(ir.messages).toEqual([
      { role: 'system', content: [{ type: 'text', text: 'Use the tools.' }] },
      { role: 'user', content: [{ type: 'text', text: 'What is the weather in Paris and Tokyo?' }] },
    ]);
  });

  it('generateContentStream (alt=sse): text pieces, a whole function call, the final finish reason and usage', async () => {
    const stream = await client().models.generateContentStream({ model: 'gemini-2.5-flash', contents: 'Weather and time in Tokyo?' });
    const texts: string[] = [];
    const calls: unknown[] = [];
    let finishReason: string | undefined;
    let usage: unknown;
    for await (const chunk of stream) {
      // Read the parts, not the `text` getter, which logs when a chunk also holds a function call.
      for (const part of chunk.candidates?.[0]?.content?.parts ?? []) if (typeof part.text === 'string') texts.push(part.text);
      calls.push(...(chunk.functionCalls ?? []));
      finishReason = chunk.candidates?.[0]?.finishReason ?? finishReason;
      usage = chunk.usageMetadata ?? usage;
      expect(chunk.responseId).toBe('resp_stream');
    }
    expect(texts.join('')).toBe('東京は晴れ🌸');
    expect(calls).toEqual([{ name: 'get_time', args: { tz: 'Asia/Tokyo' } }]);
    expect(finishReason).toBe('STOP');
    expect(usage).toEqual({ promptTokenCount: 120, cachedContentTokenCount: 64, candidatesTokenCount: 15, thoughtsTokenCount: 30, totalTokenCount: 165 });
    const sent = seen.at(-1)!;
    expect(sent.path).toBe('/v1/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
    expect(codec.decodeRequest(sent.body, originOf(sent.path))).toMatchObject({ stream: true, messages: [{ role: 'user' }] });
  });

  it('an in-stream error chunk reaches the SDK as an ApiError with the IR status', async () => {
    const stream = await client().models.generateContentStream({ model: 'gemini-2.5-flash', contents: 'fail midway please' });
    const texts: string[] = [];
    const failure = await (async () => {
      try {
        for await (const chunk of stream) texts.push(chunk.text ?? '');
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(texts.join('')).toBe('東京は');
    expect(failure).toBeInstanceOf(ApiError);
    expect((failure as ApiError).status).toBe(529);
    expect((failure as ApiError).message).toContain('UNAVAILABLE');
  });

  it('an error envelope reaches the SDK as an ApiError with its status and message', async () => {
    const failure = await client()
      .models.generateContent({ model: 'gemini-2.5-flash', contents: 'bad request' })
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ApiError);
    expect((failure as ApiError).status).toBe(400);
    expect((failure as ApiError).message).toContain('contents[0]: not acceptable');
  });
});
