// The official AWS SDK (@aws-sdk/client-bedrock-runtime) against the mock upstream scripted to
// answer with this codec's encoders: what the SDK parses is what the IR said. And what the SDK sends
// decodes to the IR a gateway would route.
import { BedrockRuntimeClient, ConverseCommand, ConverseStreamCommand, ThrottlingException, type ConverseStreamOutput } from '@aws-sdk/client-bedrock-runtime';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { EVENTSTREAM_HEADERS } from '../../../server/framing/eventstream-frame.ts';
import { gatewayError, type ChatResponse, type StreamEvent } from '../../../server/ir/index.ts';
import { bedrockCodec } from '../../../server/protocols/bedrock/index.ts';
import { signBedrockRequest } from '../../../server/upstream/sigv4.ts';
import { startMockUpstream, type MockUpstream, type RecordedRequest } from '../../support/mock-upstream.ts';
import { schemaErrors } from '../support/validators.ts';
import { encodeStream } from './support/stream.ts';
import { BEDROCK } from './support/validators.ts';

const MODEL = 'us.anthropic.claude-sonnet-4-5-20250929-v1:0';

/** What the SDK sent, its JSON body as a record. */
type Seen = RecordedRequest & { readonly json: Record<string, unknown> };

let upstream: MockUpstream;
let client: BedrockRuntimeClient;

beforeAll(async () => {
  upstream = await startMockUpstream();
  client = new BedrockRuntimeClient({
    region: 'us-east-1',
    endpoint: upstream.url,
    credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
    requestHandler: new NodeHttpHandler(),
    maxAttempts: 1,
  });
});

afterAll(async () => {
  client.destroy();
  await upstream.close();
});
beforeEach(() => upstream.reset());

const lastSeen = (): Seen => upstream.requests.at(-1) as Seen;
const answer = (status: number, headers: Record<string, string>, body: string) => upstream.enqueue({ status, headers, raw: body });
/** A plain Converse answer ("ok"), for tests about what the SDK sent rather than what it read. */
const answerOk = () =>
  answer(
    200,
    { 'content-type': 'application/json' },
    JSON.stringify(
      bedrockCodec.encodeResponse(
        { id: '', model: '', content: [{ type: 'text', text: 'ok' }], finish: { reason: 'stop', raw: 'end_turn' }, usage: null },
        { streamUsage: false },
      ).body,
    ),
  );

const REDACTED = Buffer.from('encrypted reasoning bytes').toString('base64');

describe('ConverseCommand', () => {
  it('parses what encodeResponse writes: text, reasoning, tool input, stop reason, usage', async () => {
    const response: ChatResponse = {
      id: '',
      model: '',
      content: [
        { type: 'reasoning', text: 'Paris first.', signature: 'sig-1', origin: 'bedrock' },
        { type: 'reasoning', text: '', redacted: REDACTED, origin: 'bedrock' },
        { type: 'text', text: 'Checking.' },
        { type: 'tool_call', id: 'tooluse_1', name: 'get_weather', arguments: '{"city": "Paris", "days": [1, 2]}' },
      ],
      finish: { reason: 'tool_calls', raw: 'tool_use' },
      usage: { inputTokens: 1100, outputTokens: 40, cacheReadTokens: 1000, cacheWriteTokens: 50, reasoningTokens: 0 },
    };
    answer(200, { 'content-type': 'application/json' }, JSON.stringify(bedrockCodec.encodeResponse(response, { streamUsage: false }).body));
    const out = await client.send(new ConverseCommand({ modelId: MODEL, messages: [{ role: 'user', content: [{ text: 'Weather?' }] }] }));
    const content = out.output?.message?.content ?? [];
    expect(content[0]?.reasoningContent?.reasoningText).toEqual({ text: 'Paris first.', signature: 'sig-1' });
    expect(Buffer.from(content[1]?.reasoningContent?.redactedContent ?? []).toString()).toBe('encrypted reasoning bytes');
    expect(content[2]?.text).toBe('Checking.');
    expect(content[3]?.toolUse).toEqual({ toolUseId: 'tooluse_1', name: 'get_weather', input: { city: 'Paris', days: [1, 2] } });
    expect(out.stopReason).toBe('tool_use');
    expect(out.usage).toEqual({ inputTokens: 50, outputTokens: 40, totalTokens: 1140, cacheReadInputTokens: 1000, cacheWriteInputTokens: 50 });
  });

  it('sends a body that is valid and decodes to the IR the gateway routes', async () => {
    answerOk();
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
    await client.send(
      new ConverseCommand({
        modelId: MODEL,
        system: [{ text: 'Be brief.' }, { cachePoint: { type: 'default' } }],
        messages: [
          { role: 'user', content: [{ text: 'What is this, and the weather?' }, { image: { format: 'png', source: { bytes: png } } }] },
          {
            role: 'assistant',
            content: [
              { reasoningContent: { redactedContent: Buffer.from('opaque') } },
              { toolUse: { toolUseId: 'tooluse_1', name: 'get_weather', input: { city: 'Paris' } } },
            ],
          },
          { role: 'user', content: [{ toolResult: { toolUseId: 'tooluse_1', content: [{ json: { temperature: 18 } }], status: 'success' } }] },
        ],
        inferenceConfig: { maxTokens: 100, temperature: 0.3, stopSequences: ['END'] },
        toolConfig: { tools: [{ toolSpec: { name: 'get_weather', inputSchema: { json: { type: 'object' } } } }], toolChoice: { any: {} } },
        additionalModelRequestFields: { top_k: 5 },
      }),
    );
    const request = lastSeen();
    expect(request.path).toBe('/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse');
    expect(request.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=a\/\d{8}\/us-east-1\/bedrock\/aws4_request/);
    expect(schemaErrors(BEDROCK.request, request.json)).toEqual([]);
    const ir = bedrockCodec.decodeRequest(request.json, { pathModel: decodeURIComponent(request.path.split('/')[2] ?? ''), pathStream: false });
    expect(ir).toEqual({
      model: MODEL,
      messages: [
        { role: 'system', content: [{ type: 'text', text: 'Be brief.', cacheControl: { type: 'ephemeral' } }] },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'What is this, and the weather?' },
            { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: png.toString('base64') } },
          ],
        },
        {
          role: 'assistant',
          content: [
            { type: 'reasoning', text: '', redacted: Buffer.from('opaque').toString('base64'), origin: 'bedrock' },
            { type: 'tool_call', id: 'tooluse_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
          ],
        },
        { role: 'tool', content: [{ type: 'tool_result', callId: 'tooluse_1', content: [{ type: 'text', text: '{"temperature":18}' }], isError: false }] },
      ],
      stream: false,
      streamUsage: true,
      tools: [{ name: 'get_weather', parameters: { type: 'object' } }],
      toolChoice: { type: 'required' },
      maxTokens: 100,
      temperature: 0.3,
      stopSequences: ['END'],
      topK: 5,
      source: 'bedrock',
      unmapped: [],
    });
  });

  it('raises the modelled exception encodeError names, with its status and message', async () => {
    const envelope = bedrockCodec.encodeError(gatewayError('rate_limit', 'Too many requests, slow down.', { retryAfterSeconds: 2 }));
    answer(envelope.status, envelope.headers, envelope.body);
    const error = await client.send(new ConverseCommand({ modelId: MODEL, messages: [{ role: 'user', content: [{ text: 'Hi' }] }] })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ThrottlingException);
    expect(error).toMatchObject({ name: 'ThrottlingException', message: 'Too many requests, slow down.', $metadata: { httpStatusCode: 429 } });
  });
});

describe('SigV4', () => {
  it('signBedrockRequest gives the signature the AWS SDK itself sent for the same request', async () => {
    answerOk();
    await client.send(new ConverseCommand({ modelId: MODEL, messages: [{ role: 'user', content: [{ text: 'Hi' }] }] }));
    const request = lastSeen();
    const authorization = String(request.headers.authorization);
    const signedNames = /SignedHeaders=([^,]+)/.exec(authorization)?.[1]?.split(';') ?? [];
    const headers: Record<string, string> = {};
    for (const name of signedNames) if (!['host', 'x-amz-date', 'x-amz-content-sha256'].includes(name)) headers[name] = String(request.headers[name]);
    const amzDate = String(request.headers['x-amz-date']);
    const signingDate = new Date(`${amzDate.slice(0, 4)}-${amzDate.slice(4, 6)}-${amzDate.slice(6, 11)}:${amzDate.slice(11, 13)}:${amzDate.slice(13, 15)}Z`);
    const url = new URL(`http://${String(request.headers.host)}${request.path}`);
    const added = await signBedrockRequest({
      url,
      method: 'POST',
      headers,
      body: request.rawBody,
      region: 'us-east-1',
      credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
      signingDate,
    });
    expect(added.authorization).toBe(authorization);
  });
});

describe('ConverseStreamCommand', () => {
  async function collect(events: readonly StreamEvent[]): Promise<ConverseStreamOutput[]> {
    const bytes = encodeStream(events);
    // Frames written in uneven pieces, as a network would deliver them.
    const pieces = Array.from({ length: Math.ceil(bytes.length / 7) }, (_, i) => bytes.subarray(i * 7, i * 7 + 7));
    upstream.enqueue({ headers: { ...EVENTSTREAM_HEADERS }, events: pieces });
    const out = await client.send(new ConverseStreamCommand({ modelId: MODEL, messages: [{ role: 'user', content: [{ text: 'Hi' }] }] }));
    const received: ConverseStreamOutput[] = [];
    for await (const event of out.stream ?? []) received.push(event);
    return received;
  }

  it('parses the stream encoder frames: text, reasoning, tool input pieces, stop reason, usage', async () => {
    const received = await collect([
      { type: 'message_start', id: 'msg_1', model: 'claude' },
      { type: 'block_start', index: 0, block: { type: 'reasoning', origin: 'bedrock' } },
      { type: 'block_delta', index: 0, delta: { type: 'reasoning', text: 'Think.' } },
      { type: 'block_delta', index: 0, delta: { type: 'signature', signature: 'sig-2' } },
      { type: 'block_stop', index: 0 },
      { type: 'block_start', index: 1, block: { type: 'text' } },
      { type: 'block_delta', index: 1, delta: { type: 'text', text: 'Hel' } },
      { type: 'block_delta', index: 1, delta: { type: 'text', text: 'lo 👋' } },
      { type: 'block_stop', index: 1 },
      { type: 'block_start', index: 2, block: { type: 'tool_call', id: 'tooluse_9', name: 'get_weather' } },
      { type: 'block_delta', index: 2, delta: { type: 'tool_arguments', partialJson: '{"city":' } },
      { type: 'block_delta', index: 2, delta: { type: 'tool_arguments', partialJson: '"Oslo"}' } },
      { type: 'block_stop', index: 2 },
      { type: 'usage', usage: { inputTokens: 30, outputTokens: 12, cacheReadTokens: 10, cacheWriteTokens: 0, reasoningTokens: 0 } },
      { type: 'finish', finish: { reason: 'tool_calls', raw: 'tool_calls' } },
      { type: 'message_stop' },
    ]);
    expect(received[0]).toEqual({ messageStart: { role: 'assistant' } });
    const deltas = received.flatMap((e) => (e.contentBlockDelta ? [e.contentBlockDelta] : []));
    expect(
      deltas
        .filter((d) => d.contentBlockIndex === 1)
        .map((d) => d.delta?.text)
        .join(''),
    ).toBe('Hello 👋');
    expect(deltas.filter((d) => d.contentBlockIndex === 0).map((d) => d.delta?.reasoningContent)).toEqual([{ text: 'Think.' }, { signature: 'sig-2' }]);
    expect(received.find((e) => e.contentBlockStart)?.contentBlockStart).toEqual({
      contentBlockIndex: 2,
      start: { toolUse: { toolUseId: 'tooluse_9', name: 'get_weather' } },
    });
    expect(
      JSON.parse(
        deltas
          .filter((d) => d.contentBlockIndex === 2)
          .map((d) => d.delta?.toolUse?.input)
          .join(''),
      ),
    ).toEqual({ city: 'Oslo' });
    expect(received.filter((e) => e.contentBlockStop).map((e) => e.contentBlockStop?.contentBlockIndex)).toEqual([0, 1, 2]);
    expect(received.at(-2)).toEqual({ messageStop: { stopReason: 'tool_use' } });
    expect(received.at(-1)).toEqual({
      metadata: { usage: { inputTokens: 20, outputTokens: 12, totalTokens: 42, cacheReadInputTokens: 10 }, metrics: { latencyMs: 0 } },
    });

    const request = lastSeen();
    expect(request.path).toBe('/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse-stream');
    expect(bedrockCodec.decodeRequest(request.json, { pathModel: MODEL, pathStream: true })).toMatchObject({
      stream: true,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
    });
  });

  it('raises the in-stream exception an IR error event becomes', async () => {
    const error = await collect([
      { type: 'message_start', id: '', model: '' },
      { type: 'block_start', index: 0, block: { type: 'text' } },
      { type: 'block_delta', index: 0, delta: { type: 'text', text: 'Par' } },
      { type: 'error', error: gatewayError('rate_limit', 'Too many tokens, please wait before trying again.') },
    ]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ThrottlingException);
    expect(error).toMatchObject({ message: 'Too many tokens, please wait before trying again.' });
  });
});
