// A tool loop per client SDK, written the way applications write them: call the model, run every
// tool call it asked for, send the history back with the results, until it answers with text.
// Each returns the final text and every tool-call id the client saw.
import Anthropic from '@anthropic-ai/sdk';
import { BedrockRuntimeClient, ConverseCommand, ConverseStreamCommand, type ContentBlock, type Message } from '@aws-sdk/client-bedrock-runtime';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { CohereClientV2, type Cohere } from 'cohere-ai';
import OpenAI from 'openai';

export type ToolLoop = (model: string, stream: boolean) => Promise<{ text: string; callIds: string[] }>;
export type LoopClient = 'openai' | 'responses' | 'anthropic' | 'bedrock' | 'cohere';

const PROMPT = 'Read a.ts and b.ts, then run the auth tests.';
const MAX_TURNS = 6;
const PARAMETERS = {
  read_file: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  run_tests: { type: 'object', properties: { filter: { type: 'string' } }, required: ['filter'] },
} satisfies Record<string, { type: 'object'; properties: Record<string, unknown>; required: string[] }>;
const TOOLS = Object.entries(PARAMETERS).map(([name, parameters]) => ({ name, description: `the ${name} tool`, parameters }));

/** The tool's result: deterministic, so a test can tell the results apart. */
const run = (name: string, args: string) => `result of ${name}(${args})`;

function tooManyTurns(): never {
  throw new Error(`no final answer after ${MAX_TURNS} turns`);
}

export function toolLoops(gatewayUrl: string): Record<LoopClient, ToolLoop> {
  const openai = new OpenAI({ apiKey: 'k', baseURL: `${gatewayUrl}/v1`, maxRetries: 0 });
  const anthropic = new Anthropic({ apiKey: 'k', baseURL: gatewayUrl, maxRetries: 0 });
  const bedrock = new BedrockRuntimeClient({
    region: 'us-east-1',
    endpoint: gatewayUrl,
    credentials: { accessKeyId: 'k', secretAccessKey: 'k' },
    requestHandler: new NodeHttpHandler(),
    maxAttempts: 1,
  });
  const cohere = new CohereClientV2({ token: 'k', environment: gatewayUrl });

  return {
    async openai(model, stream) {
      const tools = TOOLS.map((t) => ({ type: 'function' as const, function: t }));
      const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: PROMPT }];
      const callIds: string[] = [];
      for (let turn = 0; turn < MAX_TURNS; turn++) {
        const params = { model, messages, tools };
        const message = stream
          ? (await openai.chat.completions.stream(params).finalChatCompletion()).choices[0]!.message
          : (await openai.chat.completions.create(params)).choices[0]!.message;
        const calls = (message.tool_calls ?? []).flatMap((c) => (c.type === 'function' ? [c] : []));
        if (calls.length === 0) return { text: message.content ?? '', callIds };
        messages.push({
          role: 'assistant',
          content: message.content,
          tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.function.name, arguments: c.function.arguments } })),
        });
        for (const call of calls) {
          callIds.push(call.id);
          messages.push({ role: 'tool', tool_call_id: call.id, content: run(call.function.name, call.function.arguments) });
        }
      }
      return tooManyTurns();
    },

    async responses(model, stream) {
      const tools = TOOLS.map((t) => ({ type: 'function' as const, strict: false, ...t }));
      const input: OpenAI.Responses.ResponseInputItem[] = [{ role: 'user', content: PROMPT }];
      const callIds: string[] = [];
      for (let turn = 0; turn < MAX_TURNS; turn++) {
        const params = { model, input, tools };
        const response = stream ? await openai.responses.stream(params).finalResponse() : await openai.responses.create(params);
        const calls = response.output.flatMap((item) => (item.type === 'function_call' ? [item] : []));
        if (calls.length === 0) return { text: response.output_text, callIds };
        // As Codex does: the answer's items as they came, then one output per call.
        input.push(...calls);
        for (const call of calls) {
          callIds.push(call.call_id);
          input.push({ type: 'function_call_output', call_id: call.call_id, output: run(call.name, call.arguments) });
        }
      }
      return tooManyTurns();
    },

    async anthropic(model, stream) {
      const tools = TOOLS.map((t) => ({ name: t.name, description: t.description, input_schema: t.parameters }));
      const messages: Anthropic.MessageParam[] = [{ role: 'user', content: PROMPT }];
      const callIds: string[] = [];
      for (let turn = 0; turn < MAX_TURNS; turn++) {
        const params = { model, max_tokens: 1024, messages, tools };
        const message = stream ? await anthropic.messages.stream(params).finalMessage() : await anthropic.messages.create(params);
        const uses = message.content.flatMap((b) => (b.type === 'tool_use' ? [b] : []));
        if (uses.length === 0) return { text: message.content.map((b) => (b.type === 'text' ? b.text : '')).join(''), callIds };
        messages.push({ role: 'assistant', content: message.content });
        messages.push({
          role: 'user',
          content: uses.map((use) => {
            callIds.push(use.id);
            return { type: 'tool_result' as const, tool_use_id: use.id, content: run(use.name, JSON.stringify(use.input)) };
          }),
        });
      }
      return tooManyTurns();
    },

    async bedrock(model, stream) {
      const toolConfig = {
        tools: TOOLS.map((t) => ({ toolSpec: { name: t.name, description: t.description, inputSchema: { json: t.parameters as never } } })),
      };
      const messages: Message[] = [{ role: 'user', content: [{ text: PROMPT }] }];
      const callIds: string[] = [];
      for (let turn = 0; turn < MAX_TURNS; turn++) {
        const input = { modelId: model, messages, toolConfig };
        const content = stream ? await bedrockStream(bedrock, input) : ((await bedrock.send(new ConverseCommand(input))).output?.message?.content ?? []);
        const uses = content.flatMap((b) => (b.toolUse !== undefined ? [b.toolUse] : []));
        if (uses.length === 0) return { text: content.map((b) => b.text ?? '').join(''), callIds };
        messages.push({ role: 'assistant', content });
        messages.push({
          role: 'user',
          content: uses.map((use) => {
            callIds.push(use.toolUseId!);
            return { toolResult: { toolUseId: use.toolUseId!, content: [{ text: run(use.name!, JSON.stringify(use.input)) }] } };
          }),
        });
      }
      return tooManyTurns();
    },

    async cohere(model, stream) {
      const tools = TOOLS.map((t) => ({ type: 'function' as const, function: t }));
      const messages: Cohere.ChatMessages = [{ role: 'user', content: PROMPT }];
      const callIds: string[] = [];
      for (let turn = 0; turn < MAX_TURNS; turn++) {
        const request = { model, messages, tools };
        const { text, calls, plan } = stream ? await cohereStream(cohere, request) : cohereMessage((await cohere.chat(request)).message);
        if (calls.length === 0) return { text, callIds };
        messages.push({ role: 'assistant', toolCalls: calls, ...(plan !== '' && { toolPlan: plan }) });
        for (const call of calls) {
          callIds.push(call.id!);
          messages.push({ role: 'tool', toolCallId: call.id!, content: run(call.function!.name!, call.function!.arguments!) });
        }
      }
      return tooManyTurns();
    },
  };
}

/** The content blocks of a ConverseStream answer, assembled from its events. */
async function bedrockStream(client: BedrockRuntimeClient, input: ConstructorParameters<typeof ConverseStreamCommand>[0]): Promise<ContentBlock[]> {
  const out = await client.send(new ConverseStreamCommand(input));
  const blocks = new Map<number, { text: string; use?: { toolUseId: string; name: string }; input: string }>();
  for await (const event of out.stream ?? []) {
    if (event.contentBlockStart !== undefined) {
      const use = event.contentBlockStart.start?.toolUse;
      blocks.set(event.contentBlockStart.contentBlockIndex!, {
        text: '',
        input: '',
        ...(use !== undefined && { use: { toolUseId: use.toolUseId!, name: use.name! } }),
      });
    }
    const delta = event.contentBlockDelta;
    if (delta !== undefined) {
      const block = blocks.get(delta.contentBlockIndex!) ?? { text: '', input: '' };
      blocks.set(delta.contentBlockIndex!, block);
      block.text += delta.delta?.text ?? '';
      block.input += delta.delta?.toolUse?.input ?? '';
    }
  }
  return [...blocks.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, b]): ContentBlock => (b.use !== undefined ? { toolUse: { ...b.use, input: JSON.parse(b.input || '{}') } } : { text: b.text }));
}

interface CohereTurn {
  text: string;
  calls: Cohere.ToolCallV2[];
  plan: string;
}

function cohereMessage(message: Cohere.AssistantMessageResponse): CohereTurn {
  const text = (message.content ?? []).map((b) => (b.type === 'text' ? b.text : '')).join('');
  return { text, calls: message.toolCalls ?? [], plan: message.toolPlan ?? '' };
}

async function cohereStream(client: CohereClientV2, request: Cohere.V2ChatStreamRequest): Promise<CohereTurn> {
  const turn: CohereTurn = { text: '', calls: [], plan: '' };
  for await (const event of await client.chatStream(request)) {
    if (event.type === 'content-delta') turn.text += event.delta?.message?.content?.text ?? '';
    if (event.type === 'tool-plan-delta') turn.plan += event.delta?.message?.toolPlan ?? '';
    if (event.type === 'tool-call-start') {
      const call = event.delta?.message?.toolCalls;
      turn.calls.push({ id: call?.id ?? '', type: 'function', function: { name: call?.function?.name ?? '', arguments: call?.function?.arguments ?? '' } });
    }
    if (event.type === 'tool-call-delta') {
      const last = turn.calls[turn.calls.length - 1];
      if (last?.function !== undefined)
        last.function.arguments = (last.function.arguments ?? '') + (event.delta?.message?.toolCalls?.function?.arguments ?? '');
    }
  }
  return turn;
}
