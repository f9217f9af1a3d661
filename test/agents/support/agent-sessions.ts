// Three coding agents' sessions, each written with the official SDK the agent itself uses and in
// the request shape the agent sends (see the sources in coding-agent-sessions.test.ts). Each runs
// the tool loop to its end, executing the calls with canned results (the test run fails, as an
// error result), and returns the final text.
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI, type Content, type Part } from '@google/genai';
import OpenAI from 'openai';
import type { AgentTools } from './agent-upstream-script.ts';

export interface SessionResult {
  text: string;
  requests: number;
  /** The raw input of every freeform (`custom`) tool call the client received (Codex only). */
  freeformInputs?: string[];
}
const MAX_TURNS = 6;
const TASK = 'The auth tests fail since the token refactor. Find out why and fix it.';

/** Canned tool results: reads return code, the test run fails, the edit succeeds. */
function execute(name: string, args: string): { output: string; isError: boolean } {
  if (/test|shell|Bash|run_shell/.test(name) && /test/.test(args))
    return { output: 'FAIL test/auth.test.ts\n  expected token to be valid\nExit code 1', isError: true };
  if (/read|Read|cat/.test(name + args)) return { output: `// contents of ${args}\nexport const isValid = (t) => t.exp > Date.now();`, isError: false };
  return { output: 'Applied the edit.', isError: false };
}

// ---- Claude Code: Anthropic Messages, streaming, system blocks with cache_control, many tools,
// thinking with a budget, parallel tool_use, tool_result with is_error.
export const CLAUDE_CODE_TOOLS: AgentTools = {
  read: (path) => ({ name: 'Read', args: { file_path: `/repo/${path}` } }),
  test: { name: 'Bash', args: { command: 'npm test -- auth', description: 'Run the auth tests' } },
  edit: { name: 'Edit', args: { file_path: '/repo/src/auth.ts', old_string: 't.exp > Date.now()', new_string: 't.exp * 1000 > Date.now()' } },
};

const schema = (properties: Record<string, unknown>, required: string[]) => ({
  type: 'object' as const,
  properties,
  required,
  additionalProperties: false,
  $schema: 'http://json-schema.org/draft-07/schema#',
});

const CLAUDE_CODE_TOOL_DEFS: Anthropic.Tool[] = [
  {
    name: 'Task',
    description: 'Launch a new agent to handle complex, multi-step tasks autonomously.',
    input_schema: schema({ description: { type: 'string' }, prompt: { type: 'string' }, subagent_type: { type: 'string' } }, [
      'description',
      'prompt',
      'subagent_type',
    ]),
  },
  {
    name: 'Bash',
    description: 'Executes a given bash command in a persistent shell session.',
    input_schema: schema({ command: { type: 'string' }, timeout: { type: 'number' }, description: { type: 'string' } }, ['command']),
  },
  {
    name: 'Glob',
    description: 'Fast file pattern matching tool.',
    input_schema: schema({ pattern: { type: 'string' }, path: { type: 'string' } }, ['pattern']),
  },
  {
    name: 'Grep',
    description: 'A powerful search tool built on ripgrep.',
    input_schema: schema(
      { pattern: { type: 'string' }, path: { type: 'string' }, output_mode: { type: 'string', enum: ['content', 'files_with_matches', 'count'] } },
      ['pattern'],
    ),
  },
  {
    name: 'Read',
    description: 'Reads a file from the local filesystem.',
    input_schema: schema({ file_path: { type: 'string' }, offset: { type: 'number' }, limit: { type: 'number' } }, ['file_path']),
  },
  {
    name: 'Edit',
    description: 'Performs exact string replacements in files.',
    input_schema: schema(
      { file_path: { type: 'string' }, old_string: { type: 'string' }, new_string: { type: 'string' }, replace_all: { type: 'boolean', default: false } },
      ['file_path', 'old_string', 'new_string'],
    ),
  },
  {
    name: 'Write',
    description: 'Writes a file to the local filesystem.',
    input_schema: schema({ file_path: { type: 'string' }, content: { type: 'string' } }, ['file_path', 'content']),
  },
  {
    name: 'TodoWrite',
    description: 'Create and manage a structured task list for your current coding session.',
    input_schema: schema(
      {
        todos: {
          type: 'array',
          items: {
            type: 'object',
            properties: { content: { type: 'string' }, status: { type: 'string', enum: ['pending', 'in_progress', 'completed'] } },
            required: ['content', 'status'],
          },
        },
      },
      ['todos'],
    ),
    cache_control: { type: 'ephemeral' },
  },
];

export async function claudeCodeSession(gatewayUrl: string, model: string): Promise<SessionResult> {
  const anthropic = new Anthropic({ apiKey: 'k', baseURL: gatewayUrl, maxRetries: 0 });
  const messages: Anthropic.MessageParam[] = [
    {
      role: 'user',
      content: [
        { type: 'text', text: "<system-reminder>As you answer the user's questions, you can use the following context: gitStatus clean.</system-reminder>" },
        { type: 'text', text: TASK, cache_control: { type: 'ephemeral' } },
      ],
    },
  ];
  for (let turn = 0; turn < MAX_TURNS; turn++) {
    const message = await anthropic.messages
      .stream({
        model,
        max_tokens: 32000,
        stream: true,
        system: [
          { type: 'text', text: "You are Claude Code, Anthropic's official CLI for Claude.", cache_control: { type: 'ephemeral' } },
          {
            type: 'text',
            text: 'You are an interactive CLI tool that helps users with software engineering tasks.\n# Tone and style\nBe concise.',
            cache_control: { type: 'ephemeral' },
          },
        ],
        tools: CLAUDE_CODE_TOOL_DEFS,
        thinking: { type: 'enabled', budget_tokens: 31999 },
        metadata: { user_id: 'user_4f2a_account__session_9b1c' },
        messages,
      })
      .finalMessage();
    const uses = message.content.flatMap((b) => (b.type === 'tool_use' ? [b] : []));
    if (uses.length === 0) return { text: message.content.map((b) => (b.type === 'text' ? b.text : '')).join(''), requests: turn + 1 };
    messages.push({ role: 'assistant', content: message.content });
    messages.push({
      role: 'user',
      content: uses.map((use) => {
        const { output, isError } = execute(use.name, JSON.stringify(use.input));
        return { type: 'tool_result' as const, tool_use_id: use.id, content: output, ...(isError && { is_error: true }) };
      }),
    });
  }
  throw new Error('Claude Code session did not end');
}

// ---- Codex CLI: Responses, streaming, instructions, function tools, reasoning with summaries and
// encrypted content, store: false, parallel calls, function_call_output. apply_patch is a `custom`
// (freeform) tool with a Lark grammar, as Codex declares it for GPT-5 models: the model writes the
// patch itself, which comes back as a custom_tool_call whose `input` is the patch, answered with a
// custom_tool_call_output.
export const CODEX_PATCH = '*** Begin Patch\n*** Update File: src/auth.ts\n@@\n-  t.exp > Date.now()\n+  t.exp * 1000 > Date.now()\n*** End Patch';

export const CODEX_TOOLS: AgentTools = {
  read: (path) => ({ name: 'shell', args: { command: ['bash', '-lc', `cat ${path}`], workdir: '/repo' } }),
  test: { name: 'shell', args: { command: ['bash', '-lc', 'npm test -- auth'], workdir: '/repo', timeout_ms: 120000 } },
  // A lane that is not Responses carries the freeform tool as a function of one string, `input`, so its model answers that way.
  edit: { name: 'apply_patch', args: { input: CODEX_PATCH } },
};

/** A short Lark grammar of the patch envelope (Codex ships a fuller one). */
const PATCH_GRAMMAR = [
  'start: "*** Begin Patch" LF hunk+ "*** End Patch" LF?',
  'hunk: ("*** Add File: " | "*** Update File: " | "*** Delete File: ") /.+/ LF body',
  'body: (/[ +@-].*/ LF)*',
  '%import common.LF',
].join('\n');

const CODEX_TOOL_DEFS: OpenAI.Responses.Tool[] = [
  {
    type: 'function',
    name: 'shell',
    strict: false,
    description: 'Runs a shell command and returns its output.',
    parameters: {
      type: 'object',
      properties: { command: { type: 'array', items: { type: 'string' } }, workdir: { type: 'string' }, timeout_ms: { type: 'number' } },
      required: ['command'],
      additionalProperties: false,
    },
  },
  {
    type: 'function',
    name: 'update_plan',
    strict: false,
    description: 'Updates the task plan.',
    parameters: {
      type: 'object',
      properties: {
        explanation: { type: 'string' },
        plan: {
          type: 'array',
          items: {
            type: 'object',
            properties: { step: { type: 'string' }, status: { type: 'string' } },
            required: ['step', 'status'],
            additionalProperties: false,
          },
        },
      },
      required: ['plan'],
      additionalProperties: false,
    },
  },
  {
    type: 'custom',
    name: 'apply_patch',
    description: 'Use the `apply_patch` tool to edit files. This is a freeform tool: write the patch itself, not JSON.',
    format: { type: 'grammar', syntax: 'lark', definition: PATCH_GRAMMAR },
  },
];

export async function codexSession(gatewayUrl: string, model: string): Promise<SessionResult> {
  const openai = new OpenAI({ apiKey: 'k', baseURL: `${gatewayUrl}/v1`, maxRetries: 0 });
  const input: OpenAI.Responses.ResponseInputItem[] = [
    {
      type: 'message',
      role: 'user',
      content: [
        { type: 'input_text', text: '<environment_context>\n  <cwd>/repo</cwd>\n  <approval_policy>on-request</approval_policy>\n</environment_context>' },
      ],
    },
    { type: 'message', role: 'user', content: [{ type: 'input_text', text: TASK }] },
  ];
  const freeformInputs: string[] = [];
  for (let turn = 0; turn < MAX_TURNS; turn++) {
    const response = await openai.responses
      .stream({
        model,
        instructions: "You are Codex, based on GPT-5. You are running as a coding agent in the Codex CLI on a user's computer.",
        input,
        tools: CODEX_TOOL_DEFS,
        tool_choice: 'auto',
        parallel_tool_calls: true,
        reasoning: { effort: 'medium', summary: 'auto' },
        store: false,
        include: ['reasoning.encrypted_content'],
        prompt_cache_key: 'codex-session-0199a1b2',
      })
      .finalResponse();
    const calls = response.output.flatMap((item) => (item.type === 'function_call' || item.type === 'custom_tool_call' ? [item] : []));
    if (calls.length === 0) return { text: response.output_text, requests: turn + 1, freeformInputs };
    // Codex keeps every output item (reasoning with its encrypted content included) in the history.
    input.push(...(response.output as OpenAI.Responses.ResponseInputItem[]));
    for (const call of calls) {
      if (call.type === 'custom_tool_call') {
        freeformInputs.push(call.input);
        input.push({ type: 'custom_tool_call_output', call_id: call.call_id, output: execute(call.name, call.input).output });
        continue;
      }
      const { output, isError } = execute(call.name, call.arguments);
      input.push({
        type: 'function_call_output',
        call_id: call.call_id,
        output: JSON.stringify({ output, metadata: { exit_code: isError ? 1 : 0, duration_seconds: 0.4 } }),
      });
    }
  }
  throw new Error('Codex session did not end');
}

// ---- Gemini CLI: streamGenerateContent, functionDeclarations with JSON Schema, thinking with
// includeThoughts, thought signatures kept on the function calls in the history, functionResponse
// parts (with the call's id when it had one), an error result as {error}.
export const GEMINI_CLI_TOOLS: AgentTools = {
  read: (path) => ({ name: 'read_file', args: { absolute_path: `/repo/${path}` } }),
  test: { name: 'run_shell_command', args: { command: 'npm test -- auth', description: 'Run the auth tests' } },
  edit: { name: 'replace', args: { file_path: '/repo/src/auth.ts', old_string: 't.exp > Date.now()', new_string: 't.exp * 1000 > Date.now()' } },
};

const GEMINI_CLI_DECLARATIONS = [
  {
    name: 'list_directory',
    description: 'Lists the names of files and subdirectories directly within a specified directory path.',
    parametersJsonSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  },
  {
    name: 'read_file',
    description: 'Reads and returns the content of a specified file.',
    parametersJsonSchema: {
      type: 'object',
      properties: { absolute_path: { type: 'string' }, offset: { type: 'number' }, limit: { type: 'number' } },
      required: ['absolute_path'],
    },
  },
  {
    name: 'search_file_content',
    description: 'Searches for a regular expression pattern within the content of files.',
    parametersJsonSchema: { type: 'object', properties: { pattern: { type: 'string' }, path: { type: 'string' } }, required: ['pattern'] },
  },
  {
    name: 'replace',
    description: 'Replaces text within a file.',
    parametersJsonSchema: {
      type: 'object',
      properties: { file_path: { type: 'string' }, old_string: { type: 'string' }, new_string: { type: 'string' } },
      required: ['file_path', 'old_string', 'new_string'],
    },
  },
  {
    name: 'run_shell_command',
    description: 'Executes a given shell command as `bash -c <command>`.',
    parametersJsonSchema: { type: 'object', properties: { command: { type: 'string' }, description: { type: 'string' } }, required: ['command'] },
  },
];

export async function geminiCliSession(gatewayUrl: string, model: string): Promise<SessionResult> {
  const gemini = new GoogleGenAI({ apiKey: 'k', httpOptions: { baseUrl: gatewayUrl } });
  const contents: Content[] = [
    { role: 'user', parts: [{ text: 'This is the Gemini CLI. We are setting up the context for our chat.\nMy operating system is: linux' }, { text: TASK }] },
  ];
  for (let turn = 0; turn < MAX_TURNS; turn++) {
    const parts: Part[] = [];
    for await (const chunk of await gemini.models.generateContentStream({
      model,
      contents,
      config: {
        systemInstruction: 'You are an interactive CLI agent specializing in software engineering tasks.',
        tools: [{ functionDeclarations: GEMINI_CLI_DECLARATIONS }],
        thinkingConfig: { includeThoughts: true, thinkingBudget: 8192 },
        temperature: 0,
        topP: 1,
      },
    }))
      parts.push(...(chunk.candidates?.[0]?.content?.parts ?? []));
    const calls = parts.filter((part) => part.functionCall !== undefined);
    if (calls.length === 0)
      return {
        text: parts
          .filter((p) => p.thought !== true)
          .map((p) => p.text ?? '')
          .join(''),
        requests: turn + 1,
      };
    // The history keeps the model's parts but not its thoughts; the function calls keep their signatures.
    contents.push({ role: 'model', parts: parts.filter((part) => part.thought !== true) });
    contents.push({
      role: 'user',
      parts: calls.map((part) => {
        const call = part.functionCall!;
        const { output, isError } = execute(call.name ?? '', JSON.stringify(call.args));
        return { functionResponse: { ...(call.id !== undefined && { id: call.id }), name: call.name, response: isError ? { error: output } : { output } } };
      }),
    });
  }
  throw new Error('Gemini CLI session did not end');
}
