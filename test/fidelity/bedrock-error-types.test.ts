// A Bedrock client learns what went wrong from the exception's name, which the AWS SDK reads from
// the `x-amzn-errortype` header: on a Bedrock lane the upstream's is relayed, on any other lane
// (and for the gateway's own errors) the Bedrock codec writes the one for the error's kind.
import { BedrockRuntimeClient, ConverseCommand, ConverseStreamCommand } from '@aws-sdk/client-bedrock-runtime';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ProtocolId } from '../../server/ir/index.ts';
import { codecFor } from '../../server/protocols/registry.ts';
import { laneModel, startSixLaneHarness, type SixLaneHarness } from '../support/six-lane-harness.ts';

let h: SixLaneHarness;
let client: BedrockRuntimeClient;
beforeAll(async () => {
  h = await startSixLaneHarness();
  client = new BedrockRuntimeClient({
    region: 'us-east-1',
    endpoint: h.url,
    credentials: { accessKeyId: 'k', secretAccessKey: 'k' },
    requestHandler: new NodeHttpHandler(),
    maxAttempts: 1,
  });
});
afterAll(() => {
  client.destroy();
  return h.close();
});
beforeEach(() => h.upstream.reset());

const input = (model: string) => ({ modelId: model, messages: [{ role: 'user' as const, content: [{ text: 'hi' }] }] });

async function thrown(send: () => Promise<unknown>): Promise<{ name: string; status: number | undefined; requestId: string | undefined; message: string }> {
  try {
    await send();
  } catch (error) {
    const e = error as { name: string; message: string; $metadata?: { httpStatusCode?: number; requestId?: string } };
    return { name: e.name, status: e.$metadata?.httpStatusCode, requestId: e.$metadata?.requestId, message: e.message };
  }
  throw new Error('the call succeeded');
}

/** How real Bedrock answers an error: the type (with its namespace suffix) in a header, `{message}` in the body. */
const bedrockError = (status: number, type: string, message: string) => ({
  status,
  raw: JSON.stringify({ message }),
  headers: {
    'content-type': 'application/json',
    'x-amzn-errortype': `${type}:http://internal.amazon.com/coral/com.amazon.bedrock/`,
    'x-amzn-requestid': 'a1b2c3d4-req',
  },
});

describe('Bedrock client on a Bedrock lane: the upstream exception is relayed', () => {
  it.each([
    [400, 'ValidationException'],
    [429, 'ThrottlingException'],
    [404, 'ResourceNotFoundException'],
    [424, 'ModelErrorException'],
    [503, 'ServiceUnavailableException'],
    [408, 'ModelTimeoutException'],
  ])('%i %s', async (status, type) => {
    h.upstream.enqueue(bedrockError(status, type, `upstream says ${type}`));
    const error = await thrown(() => client.send(new ConverseCommand(input(laneModel('bedrock')))));
    expect(error).toEqual({ name: type, status, requestId: 'a1b2c3d4-req', message: `upstream says ${type}` });
  });

  it('on ConverseStream too, before the stream starts', async () => {
    h.upstream.enqueue(bedrockError(429, 'ThrottlingException', 'Too many tokens'));
    const error = await thrown(() => client.send(new ConverseStreamCommand(input(laneModel('bedrock')))));
    expect(error.name).toBe('ThrottlingException');
  });
});

/** An error body as `protocol` writes it for this kind, by that protocol's own codec. */
function upstreamError(protocol: ProtocolId, kind: 'invalid_request' | 'rate_limit' | 'server', status: number) {
  const envelope = codecFor(protocol)!.encodeError({ kind, status, message: `upstream ${kind}`, param: null, code: null } as never);
  return { status, raw: envelope.body, headers: { ...envelope.headers } };
}

describe("Bedrock client on another protocol's lane: the codec names the exception", () => {
  it.each([
    ['openai', 'invalid_request', 400, 'ValidationException'],
    ['anthropic', 'rate_limit', 429, 'ThrottlingException'],
    ['gemini', 'server', 500, 'InternalServerException'],
    ['cohere', 'rate_limit', 429, 'ThrottlingException'],
  ] as const)('%s lane, %s -> %s', async (lane, kind, status, type) => {
    h.upstream.enqueue(upstreamError(lane, kind, status));
    const error = await thrown(() => client.send(new ConverseCommand(input(laneModel(lane)))));
    expect(error.name).toBe(type);
    expect(error.status).toBe(status);
  });

  it("the gateway's own errors: unknown model and a refused body", async () => {
    expect((await thrown(() => client.send(new ConverseCommand(input('no-such-model'))))).name).toBe('ResourceNotFoundException');
    const refused = await thrown(() =>
      client.send(new ConverseCommand({ modelId: laneModel('openai'), messages: [{ role: 'user', content: [] }], inferenceConfig: { maxTokens: -5 } })),
    );
    expect(refused.name).toBe('ValidationException');
  });
});
