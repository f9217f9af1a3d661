// Converse request decoding beyond the golden fixtures: the path names the model, and every
// client field either maps, is refused with a 400 naming it, or is listed in `unmapped`.
import { describe, expect, it } from 'vitest';
import { bedrockCodec } from '../../../server/protocols/bedrock/index.ts';
import { failureOf } from '../support/translate.ts';
import { decodeValid as decode } from './support/decode.ts';

const messages = [{ role: 'user', content: [{ text: 'Hi' }] }];

describe('Bedrock decodeRequest: the path', () => {
  it('takes the model and the stream flag from the path', () => {
    expect(decode({ messages }, { pathModel: 'amazon.nova-pro-v1:0', pathStream: true })).toMatchObject({
      model: 'amazon.nova-pro-v1:0',
      stream: true,
      streamUsage: true,
    });
    expect(decode({ messages }, { pathModel: 'm' })).toMatchObject({ stream: false });
  });

  it('refuses a request without a path model, and a prompt-managed request without messages', () => {
    expect(failureOf(() => bedrockCodec.decodeRequest({ messages }, {}))).toMatchObject({ status: 400, param: 'modelId' });
    expect(failureOf(() => decode({ promptVariables: { topic: { text: 'x' } } }))).toMatchObject({
      status: 400,
      param: 'messages',
      code: 'unsupported_parameter',
    });
  });
});

describe('Bedrock decodeRequest: content', () => {
  it('puts a cache point after a tool result that ends in text on that text', () => {
    const request = decode({
      messages: [
        { role: 'assistant', content: [{ toolUse: { toolUseId: 't1', name: 'f', input: {} } }] },
        {
          role: 'user',
          content: [{ toolResult: { toolUseId: 't1', content: [{ text: 'ok' }] } }, { cachePoint: { type: 'default', ttl: '5m' } }, { text: 'Go on' }],
        },
      ],
      toolConfig: { tools: [{ toolSpec: { name: 'f', inputSchema: { json: { type: 'object' } } } }] },
    });
    expect(request.messages.slice(1)).toEqual([
      {
        role: 'tool',
        content: [
          { type: 'tool_result', callId: 't1', content: [{ type: 'text', text: 'ok', cacheControl: { type: 'ephemeral', ttl: '5m' } }], isError: false },
        ],
      },
      { role: 'user', content: [{ type: 'text', text: 'Go on' }] },
    ]);
  });

  it('maps tool choices any and tool, and a system-role message', () => {
    const tools = [{ toolSpec: { name: 'f', inputSchema: { json: { type: 'object' } }, strict: true } }];
    expect(decode({ messages, toolConfig: { tools, toolChoice: { any: {} } } })).toMatchObject({
      toolChoice: { type: 'required' },
      tools: [{ name: 'f', strict: true }],
    });
    expect(decode({ messages, toolConfig: { tools, toolChoice: { tool: { name: 'f' } } } }).toolChoice).toEqual({ type: 'tool', name: 'f' });
    expect(decode({ messages: [{ role: 'system', content: [{ text: 'Be brief.' }] }, ...messages] }).messages[0]).toEqual({
      role: 'system',
      content: [{ type: 'text', text: 'Be brief.' }],
    });
  });

  it('refuses what is bound to AWS or has no IR form, with a 400 naming the field', () => {
    const cases: [unknown[], string][] = [
      [[{ image: { format: 'png', source: { s3Location: { uri: 's3://bucket/cat.png' } } } }], 'messages[0].content[0].image.source.s3Location'],
      [[{ document: { name: 'doc', format: 'pdf', source: { bytes: 'JVBERi0=' } } }], 'messages[0].content[0]'],
      [[{ video: { format: 'mp4', source: { bytes: 'AAAA' } } }], 'messages[0].content[0]'],
      [[{ toolResult: { toolUseId: 't', content: [{ document: { name: 'd', source: { text: 'x' } } }] } }], 'messages[0].content[0].toolResult.content[0]'],
    ];
    for (const [content, param] of cases) {
      expect(
        failureOf(() => decode({ messages: [{ role: 'user', content }] })),
        param,
      ).toMatchObject({ status: 400, param, code: 'unsupported_parameter' });
    }
    expect(failureOf(() => decode({ messages, toolConfig: { tools: [{ systemTool: { name: 'nova_grounding' } }] } }))).toMatchObject({
      status: 400,
      param: 'toolConfig.tools[0]',
      code: 'unsupported_parameter',
    });
    expect(
      failureOf(() =>
        decode({ messages: [{ role: 'assistant', content: [{ toolUse: { toolUseId: 't', name: 'nova_grounding', input: {}, type: 'server_tool_use' } }] }] }),
      ),
    ).toMatchObject({ status: 400, param: 'messages[0].content[0].toolUse.type' });
  });
});
