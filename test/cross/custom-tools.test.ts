// Codex's freeform (`custom`) tools through lanes that only know JSON-argument functions: carried
// as a function with one string argument, `input`, and handed back to the Responses client as
// custom_tool_call items (stream and not); custom_tool_call_output becomes the lane's tool result.
import type OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import type { ChatResponse, ProtocolId, StreamEvent } from '../../server/ir/index.ts';
import { upstreamJson, upstreamStream } from '../support/six-lane-harness.ts';
import { useSixLaneHarness } from '../support/six-lane-suite.ts';

const PATCH = '*** Begin Patch\n*** Update File: a.txt\n@@\n-old "line"\n+new line\n*** End Patch\n';
const ARGS = JSON.stringify({ input: PATCH });
const USAGE = { inputTokens: 20, outputTokens: 9, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 };

const TOOLS: OpenAI.Responses.Tool[] = [
  {
    type: 'custom',
    name: 'apply_patch',
    description: 'Apply a patch to files.',
    format: { type: 'grammar', syntax: 'lark', definition: 'start: "*** Begin Patch" /(.|\\n)*/' },
  },
  {
    type: 'function',
    name: 'read_file',
    description: 'Read a file.',
    parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'], additionalProperties: false },
    strict: true,
  },
];

const CALL_ANSWER: ChatResponse = {
  id: 'r1',
  model: 'upstream',
  content: [
    { type: 'text', text: 'Patching.' },
    { type: 'tool_call', id: 'call_patch_1', name: 'apply_patch', arguments: ARGS },
  ],
  finish: { reason: 'tool_calls', raw: null },
  usage: USAGE,
};

function callStream(): StreamEvent[] {
  return [
    { type: 'message_start', id: 'r1', model: 'upstream' },
    { type: 'block_start', index: 0, block: { type: 'tool_call', id: 'call_patch_1', name: 'apply_patch' } },
    { type: 'block_delta', index: 0, delta: { type: 'tool_arguments', partialJson: ARGS.slice(0, 17) } },
    { type: 'block_delta', index: 0, delta: { type: 'tool_arguments', partialJson: ARGS.slice(17) } },
    { type: 'block_stop', index: 0 },
    { type: 'finish', finish: { reason: 'tool_calls', raw: null } },
    { type: 'usage', usage: USAGE },
    { type: 'message_stop' },
  ];
}

const lanes = useSixLaneHarness();

const { sent } = lanes;

/** The lane's function declaration for the custom tool. */
function declaredTool(lane: ProtocolId): { name: string; schema: { properties: Record<string, { type: string; description: string }>; required: string[] } } {
  const body = sent();
  if (lane === 'anthropic') {
    const tool = (body.tools as { name: string; input_schema: never }[]).find((t) => t.name === 'apply_patch')!;
    return { name: tool.name, schema: tool.input_schema };
  }
  const declarations = (body.tools as { functionDeclarations: { name: string; parametersJsonSchema: never }[] }[])[0]!.functionDeclarations;
  const tool = declarations.find((t) => t.name === 'apply_patch')!;
  return { name: tool.name, schema: tool.parametersJsonSchema };
}

describe.each(['anthropic', 'gemini'] as const)('custom tools to a %s lane', (lane) => {
  // Gemini has no call ids: the gateway names calls itself.
  const callId = lane === 'gemini' ? expect.stringMatching(/apply_patch/) : 'call_patch_1';

  it('the tool is a function with one string argument, input; the call comes back as custom_tool_call', async () => {
    lanes.harness.upstream.enqueue(upstreamJson(lane, CALL_ANSWER));
    const { data: response, response: raw } = await lanes.openai.responses.create({ model: `m-${lane}`, input: 'Fix a.txt', tools: TOOLS }).withResponse();
    const tool = declaredTool(lane);
    expect(Object.keys(tool.schema.properties)).toEqual(['input']);
    expect(tool.schema.properties.input?.type).toBe('string');
    expect(tool.schema.required).toEqual(['input']);
    expect(tool.schema.properties.input?.description).toContain('*** Begin Patch'); // the grammar, for the model to follow
    expect(raw.headers.get('x-gateway-warnings')).toContain('tools[0].format');
    const call = response.output.find((item) => item.type === 'custom_tool_call');
    expect(call).toMatchObject({ type: 'custom_tool_call', call_id: callId, name: 'apply_patch', input: PATCH });
    expect(response.output.some((item) => item.type === 'function_call')).toBe(false);
  });

  it('streamed: finalResponse has the custom_tool_call with the raw input', async () => {
    lanes.harness.upstream.enqueue(upstreamStream(lane, callStream()));
    const events: string[] = [];
    const stream = lanes.openai.responses.stream({ model: `m-${lane}`, input: 'Fix a.txt', tools: TOOLS });
    stream.on('event', (event) => events.push(event.type));
    const final = await stream.finalResponse();
    expect(final.output).toEqual([expect.objectContaining({ type: 'custom_tool_call', call_id: callId, name: 'apply_patch', input: PATCH })]);
    expect(events).toContain('response.custom_tool_call_input.done');
    expect(events).not.toContain('response.function_call_arguments.delta');
  });

  it("the next turn: custom_tool_call and its output become the lane's call and result", async () => {
    lanes.harness.upstream.enqueue(upstreamJson(lane, { ...CALL_ANSWER, content: [{ type: 'text', text: 'Done.' }], finish: { reason: 'stop', raw: null } }));
    const out = await lanes.openai.responses.create({
      model: `m-${lane}`,
      tools: TOOLS,
      input: [
        { role: 'user', content: 'Fix a.txt' },
        { type: 'custom_tool_call', call_id: 'call_patch_1', name: 'apply_patch', input: PATCH },
        { type: 'custom_tool_call_output', call_id: 'call_patch_1', output: 'Success. Updated a.txt' },
      ],
    });
    expect(out.output_text).toBe('Done.');
    const body = JSON.stringify(sent());
    if (lane === 'anthropic') {
      const messages = sent().messages as { role: string; content: { type: string; input?: unknown; tool_use_id?: string; content?: unknown }[] }[];
      expect(messages[1]?.content[0]).toMatchObject({ type: 'tool_use', name: 'apply_patch', input: { input: PATCH } });
      expect(messages[2]?.content[0]).toMatchObject({ type: 'tool_result', tool_use_id: 'call_patch_1' });
    } else {
      const contents = sent().contents as { role: string; parts: { functionCall?: { name: string; args: unknown }; functionResponse?: { name: string } }[] }[];
      expect(contents[1]?.parts[0]?.functionCall).toEqual({ name: 'apply_patch', args: { input: PATCH } });
      expect(contents[2]?.parts[0]?.functionResponse?.name).toBe('apply_patch');
    }
    expect(body).toContain('Success. Updated a.txt');
  });
});

describe('custom tools on a Gemini 3 lane', () => {
  const SIGNATURE = Buffer.from('gemini-3 signature of the patch call \xfb\xff', 'latin1').toString('base64');
  const signed: ChatResponse = {
    ...CALL_ANSWER,
    content: [{ type: 'tool_call', id: 'call_patch_1', name: 'apply_patch', arguments: ARGS, signature: { origin: 'gemini', value: SIGNATURE } }],
  };

  it('the function-call signature rides in the custom_tool_call call_id and is back on the call next turn', async () => {
    lanes.harness.upstream.enqueue(upstreamJson('gemini', signed));
    const response = await lanes.openai.responses.create({ model: 'm-gemini', input: 'Fix a.txt', tools: TOOLS });
    const call = response.output.find((item) => item.type === 'custom_tool_call');
    expect(call).toMatchObject({ name: 'apply_patch', input: PATCH });
    expect(call!.call_id).not.toBe('call_patch_1'); // the carrier, not the plain id

    lanes.harness.upstream.enqueue(
      upstreamJson('gemini', { ...CALL_ANSWER, content: [{ type: 'text', text: 'Done.' }], finish: { reason: 'stop', raw: null } }),
    );
    await lanes.openai.responses.create({
      model: 'm-gemini',
      tools: TOOLS,
      input: [
        { role: 'user', content: 'Fix a.txt' },
        { type: 'custom_tool_call', call_id: call!.call_id, name: 'apply_patch', input: call!.input },
        { type: 'custom_tool_call_output', call_id: call!.call_id, output: 'Success. Updated a.txt' },
      ],
    });
    const contents = sent().contents as { parts: { functionCall?: { name: string }; thoughtSignature?: string; functionResponse?: { name: string } }[] }[];
    expect(contents[1]?.parts[0]).toMatchObject({ functionCall: { name: 'apply_patch' }, thoughtSignature: SIGNATURE });
    expect(contents[2]?.parts[0]?.functionResponse?.name).toBe('apply_patch');
  });

  it('streamed: the custom_tool_call call_id carries the signature too', async () => {
    lanes.harness.upstream.enqueue(
      upstreamStream(
        'gemini',
        callStream().map((event) =>
          event.type === 'block_start' && event.block.type === 'tool_call'
            ? { ...event, block: { ...event.block, signature: { origin: 'gemini' as const, value: SIGNATURE } } }
            : event,
        ),
      ),
    );
    const final = await lanes.openai.responses.stream({ model: 'm-gemini', input: 'Fix a.txt', tools: TOOLS }).finalResponse();
    const call = final.output.find((item) => item.type === 'custom_tool_call');
    expect(call).toMatchObject({ name: 'apply_patch', input: PATCH });
    expect(call!.call_id).toContain(SIGNATURE.replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, ''));
  });
});
