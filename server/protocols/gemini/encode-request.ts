import type { ChatRequest, ContentBlock, ResponseFormat, ToolChoice } from '../../ir/index.ts';
import { SystemSlot } from '../shared/system-slot.ts';
import type { EncodedRequest, LaneContext, TranslationWarning } from '../codec.ts';
import { invalidField, unsupportedField } from '../shared/invalid-field.ts';
import { argumentsToObject } from '../shared/tool-arguments.ts';
import { isEmptyText } from '../shared/empty-text.ts';
import { dropped } from '../shared/warnings.ts';
import { imagePart, signatureOf } from './encode-parts.ts';
import { wrapToolOutput } from './tool-result.ts';
import type {
  Content as GeminiContent,
  FunctionDeclaration as GeminiFunctionDeclaration,
  FunctionResponsePart as GeminiFunctionResponsePart,
  GenerationConfig as GeminiGenerationConfig,
  Part as GeminiPart,
  ToolConfig as GeminiToolConfig,
} from '../../../generated/protocols/gemini/request.ts';
import { asJsonObject } from '../shared/json-object.ts';
import { encodeThinkingConfig } from './thinking-config.ts';

/**
 * IR to a generateContent body for one lane. Pure. The model and streaming go in the path
 * (upstreamPath), not the body. functionCall/functionResponse ids are never written: the Gemini
 * API has answered them with 400 "Unknown name id", and it pairs results with calls by name.
 */
export function encodeRequest(request: ChatRequest, lane: LaneContext): EncodedRequest {
  const warnings: TranslationWarning[] = [];
  const system: GeminiPart[] = [];
  const contents: (GeminiContent & { parts: GeminiPart[] })[] = [];
  /** Tool-call id -> function name, for the results that follow (Gemini names results by function). */
  const callNames = new Map<string, string>();
  const systemSlot = new SystemSlot('systemInstruction');

  request.messages.forEach((message, i) => {
    const path = `messages[${i}]`;
    if (message.name !== undefined) warnings.push(dropped(`${path}.name`, 'the message author name'));
    if (systemSlot.takes(message, path, warnings)) {
      message.content.forEach((block, j) => {
        const at = `${path}.content[${j}]`;
        if (block.type !== 'text') throw unsupportedField(at, 'Gemini', 'a system instruction can only hold text');
        if (block.cacheControl !== undefined) warnings.push(dropped(`${at}.cache_control`, 'prompt cache hints'));
        if (!isEmptyText(block)) system.push({ text: block.text });
      });
      return;
    }
    const role = message.role === 'assistant' ? 'model' : 'user';
    const parts = message.content.flatMap((block, j) => (isEmptyText(block) ? [] : encodeBlock(block, `${path}.content[${j}]`, callNames, warnings)));
    if (parts.length === 0) return;
    const last = contents[contents.length - 1];
    // Gemini wants user and model turns to alternate: a tool turn and the user turn after it are one turn.
    if (last !== undefined && last.role === role) last.parts.push(...parts);
    else contents.push({ role, parts });
  });
  if (contents.length === 0) throw invalidField('messages', 'Gemini needs at least one user or model turn besides the system instruction');

  const body: Record<string, unknown> = { contents };
  if (system.length > 0) body.systemInstruction = { parts: system };
  if (request.tools !== undefined && request.tools.length > 0) {
    const functionDeclarations = request.tools.map((tool, i): GeminiFunctionDeclaration => {
      if (tool.cacheControl !== undefined) warnings.push(dropped(`tools[${i}].cache_control`, 'prompt cache hints'));
      if (tool.strict === true) warnings.push(dropped(`tools[${i}].strict`, 'strict argument validation'));
      // parametersJsonSchema takes JSON Schema as is; `parameters` would need the OpenAPI subset.
      return { name: tool.name, ...(tool.description !== undefined && { description: tool.description }), parametersJsonSchema: asJsonObject(tool.parameters) };
    });
    body.tools = [{ functionDeclarations }];
  }
  if (request.toolChoice !== undefined) body.toolConfig = encodeToolChoice(request.toolChoice);
  if (request.parallelToolCalls === false) warnings.push(dropped('parallel_tool_calls', 'the one-call-per-turn limit'));
  const generationConfig = encodeGenerationConfig(request, lane.model, warnings);
  if (Object.keys(generationConfig).length > 0) body.generationConfig = generationConfig;
  if (request.user !== undefined) warnings.push(dropped('user', 'the end-user id'));
  return { body, warnings };
}

function encodeBlock(block: ContentBlock, path: string, callNames: Map<string, string>, warnings: TranslationWarning[]): GeminiPart[] {
  switch (block.type) {
    case 'text':
      if (block.cacheControl !== undefined) warnings.push(dropped(`${path}.cache_control`, 'prompt cache hints'));
      return [{ text: block.text, ...signatureOf(block.signature, path, warnings) }];
    case 'image':
      return [imagePart(block, path, warnings)];
    case 'tool_call':
      callNames.set(block.id, block.name);
      return [
        {
          functionCall: { name: block.name, args: argumentsToObject(block.arguments, `${path}.arguments`) },
          ...signatureOf(block.signature, path, warnings),
        },
      ];
    case 'tool_result': {
      const name = callNames.get(block.callId);
      if (name === undefined)
        throw invalidField(`${path}.callId`, `no earlier tool call has id "${block.callId}", and Gemini names a result by its call's function`);
      const texts: string[] = [];
      const media: GeminiFunctionResponsePart[] = [];
      block.content.forEach((part, k) => {
        const at = `${path}.content[${k}]`;
        if (part.type === 'text') {
          if (part.cacheControl !== undefined) warnings.push(dropped(`${at}.cache_control`, 'prompt cache hints'));
          texts.push(part.text);
        } else {
          media.push(imagePart(part, at, warnings) as GeminiFunctionResponsePart);
        }
      });
      return [
        {
          functionResponse: { name, response: wrapToolOutput(texts.join('\n\n'), block.isError), ...(media.length > 0 && { parts: media }) },
        },
      ];
    }
    case 'reasoning':
      // Thought parts mean something only with Gemini's own signature; others' reasoning cannot be replayed.
      if (block.origin !== 'gemini') {
        warnings.push(
          dropped(path, block.origin === undefined ? 'unsigned reasoning from another provider' : `reasoning signed by the ${block.origin} protocol`),
        );
        return [];
      }
      if (block.redacted !== undefined) warnings.push(dropped(`${path}.redacted`, 'encrypted reasoning'));
      return [{ text: block.text, thought: true, ...(block.signature !== undefined && { thoughtSignature: block.signature }) }];
  }
}

function encodeToolChoice(choice: ToolChoice): GeminiToolConfig {
  switch (choice.type) {
    case 'auto':
      return { functionCallingConfig: { mode: 'AUTO' } };
    case 'none':
      return { functionCallingConfig: { mode: 'NONE' } };
    case 'required':
      return { functionCallingConfig: { mode: 'ANY' } };
    case 'tool':
      return { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [choice.name] } };
  }
}

function encodeGenerationConfig(request: ChatRequest, model: string, warnings: TranslationWarning[]): GeminiGenerationConfig {
  const config: GeminiGenerationConfig = {};
  if (request.maxTokens !== undefined) config.maxOutputTokens = request.maxTokens;
  if (request.temperature !== undefined) config.temperature = request.temperature;
  if (request.topP !== undefined) config.topP = request.topP;
  if (request.topK !== undefined) config.topK = request.topK;
  if (request.seed !== undefined) config.seed = request.seed;
  if (request.stopSequences !== undefined) config.stopSequences = [...request.stopSequences];
  if (request.responseFormat !== undefined) Object.assign(config, encodeResponseFormat(request.responseFormat, warnings));
  const thinkingConfig = encodeThinkingConfig(request.reasoning, model, warnings);
  if (thinkingConfig !== undefined) config.thinkingConfig = thinkingConfig;
  return config;
}

/** Gemini always holds the answer to the schema, so `strict` needs no field of its own. */
function encodeResponseFormat(format: ResponseFormat, warnings: TranslationWarning[]): GeminiGenerationConfig {
  switch (format.type) {
    case 'text':
      return { responseMimeType: 'text/plain' };
    case 'json_object':
      return { responseMimeType: 'application/json' };
    case 'json_schema':
      if (format.name !== undefined) warnings.push(dropped('response_format.json_schema.name', 'the schema name'));
      return { responseMimeType: 'application/json', responseJsonSchema: asJsonObject(format.schema) };
  }
}
