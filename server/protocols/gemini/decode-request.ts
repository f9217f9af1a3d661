import type {
  ChatRequest,
  ContentBlock,
  ImageBlock,
  Message,
  OpaqueSignature,
  ResponseFormat,
  TextBlock,
  ToolChoice,
  ToolDefinition,
  ToolResultBlock,
  UnmappedField,
} from '../../ir/index.ts';
import type { RequestOrigin } from '../codec.ts';
import { invalidField } from '../shared/invalid-field.ts';
import { argumentsFromObject } from '../shared/tool-arguments.ts';
import { collectUnmapped } from '../shared/unmapped-fields.ts';
import validateGeminiRequest from '../../../generated/validators/gemini-request.js';
import { checkRequestSchema } from '../shared/schema-check.ts';
import { camelCaseRequest } from './camel-case.ts';
import { RequestCallIds } from './call-ids.ts';
import { openApiToJsonSchema } from './openapi-schema.ts';
import { FIELD_RULES, GENERATION_FIELD_RULES, MAPPED_FIELDS, MAPPED_GENERATION_FIELDS } from './request-fields.ts';
import { unwrapToolResponse } from './tool-result.ts';
import { thinkingFromCarrier } from '../shared/thinking-carrier.ts';
import type {
  Blob as GeminiBlob,
  FileData as GeminiFileData,
  FunctionDeclaration as GeminiFunctionDeclaration,
  FunctionResponse as GeminiFunctionResponse,
  GenerationConfig as GeminiGenerationConfig,
  Part as GeminiPart,
  Tool as GeminiTool,
  ToolConfig as GeminiToolConfig,
} from '../../../generated/protocols/gemini/request.ts';
import { openMember } from '../shared/schema-branch.ts';
import { validatedRequest } from '../shared/validated-request.ts';
import type { GeminiListedContent as GeminiContent, GeminiListedRequest } from './wire.ts';
import { decodeThinkingConfig } from './thinking-config.ts';

type GenerationFields = Pick<ChatRequest, 'maxTokens' | 'temperature' | 'topP' | 'topK' | 'seed' | 'stopSequences' | 'responseFormat' | 'reasoning'>;

/** generateContent request (schema-validated) to IR. The model and streaming come from the route. */
export function decodeRequest(raw: Record<string, unknown>, origin: RequestOrigin): ChatRequest {
  const { body, renamed } = camelCaseRequest(raw);
  // The schema names the lowerCamelCase members: the ones a client spelled in snake_case are
  // checked now, under the names the decoder reads, so the decoder trusts every member alike.
  if (renamed) checkRequestSchema(body, validateGeminiRequest);
  const request = validatedRequest<GeminiListedRequest>(body);
  const unmapped = collectUnmapped(body, MAPPED_FIELDS, FIELD_RULES);
  const messages: Message[] = [];
  if (request.systemInstruction !== undefined) messages.push(decodeSystem(request.systemInstruction, unmapped));
  const ids = new RequestCallIds();
  request.contents.forEach((content, i) => messages.push(...decodeContent(content, `contents[${i}]`, ids, unmapped)));
  const tools = Array.isArray(request.tools) ? decodeTools(request.tools, unmapped) : undefined;
  const toolChoice = isPresent(request.toolConfig) ? decodeToolConfig(request.toolConfig, tools ?? [], unmapped) : undefined;
  const generation = isPresent(request.generationConfig) ? decodeGenerationConfig(request.generationConfig, unmapped) : {};
  return {
    model: origin.pathModel ?? modelOfBody(request.model),
    messages,
    stream: origin.pathStream === true,
    // Every Gemini stream chunk carries usageMetadata.
    streamUsage: true,
    ...(tools !== undefined && { tools }),
    ...(toolChoice !== undefined && { toolChoice }),
    ...generation,
    source: 'gemini',
    unmapped,
  };
}

function modelOfBody(model: unknown): string {
  if (typeof model !== 'string' || model === '') throw invalidField('model', 'Gemini names the model in the path: /v1beta/models/{model}:generateContent');
  return model.startsWith('models/') ? model.slice('models/'.length) : model;
}

function decodeSystem(content: GeminiContent, unmapped: UnmappedField[]): Message {
  const blocks = (content.parts ?? []).map((part, j): TextBlock => {
    const path = `systemInstruction.parts[${j}]`;
    if (typeof part.text !== 'string' || part.thought === true)
      throw invalidField(path, 'a system instruction can only hold text parts to be translated', 'unsupported_parameter');
    warnTuning(part, path, unmapped);
    return { type: 'text', text: part.text, ...signed(part) };
  });
  return { role: 'system', content: blocks };
}

/** A user turn's functionResponse parts become a `tool` message ahead of the rest of the turn. */
function decodeContent(content: GeminiContent, path: string, ids: RequestCallIds, unmapped: UnmappedField[]): Message[] {
  // A turn without parts (a model turn that ended with no output, replayed as it came) says nothing.
  const parts = content.parts ?? [];
  if (parts.length === 0) return [];
  const role = content.role ?? 'user';
  if (role === 'model') {
    return [{ role: 'assistant', content: parts.flatMap((part, j) => withCarriedThinking(decodePart(part, `${path}.parts[${j}]`, ids, unmapped))) }];
  }
  // `function` is the role older v1beta clients gave function-response turns.
  if (role !== 'user' && role !== 'function') throw invalidField(`${path}.role`, `"${role}" is not a Gemini role (user or model)`);
  const results: ToolResultBlock[] = [];
  const rest: ContentBlock[] = [];
  parts.forEach((part, j) => {
    const at = `${path}.parts[${j}]`;
    if (isPresent(part.functionResponse)) results.push(decodeFunctionResponse(part, part.functionResponse, at, ids, unmapped));
    else rest.push(decodePart(part, at, ids, unmapped));
  });
  const out: Message[] = [];
  if (results.length > 0) out.push({ role: 'tool', content: results });
  if (rest.length > 0 || results.length === 0) out.push({ role: 'user', content: rest });
  return out;
}

/** Part members that only tune how Google reads media; the answer does not depend on them. */
const PART_TUNING = ['videoMetadata', 'mediaResolution', 'mediaProcessing', 'partMetadata'] as const;
/** Parts that belong to Google's server-side tools (code execution and the like). */
const SERVER_TOOL_PARTS = ['executableCode', 'codeExecutionResult', 'toolCall', 'toolResponse'] as const;

function decodePart(part: GeminiPart, path: string, ids: RequestCallIds, unmapped: UnmappedField[]): ContentBlock {
  warnTuning(part, path, unmapped);
  const signature = typeof part.thoughtSignature === 'string' ? part.thoughtSignature : undefined;
  // A part may be nothing but a signature (Gemini 3 ends some answers with one): an empty text.
  if (typeof part.text === 'string' || (signature !== undefined && !hasData(part))) {
    const text = part.text ?? '';
    if (part.thought === true) return { type: 'reasoning', text, origin: 'gemini', ...(signature !== undefined && { signature }) };
    return { type: 'text', text, ...signed(part) };
  }
  if (isPresent(part.functionCall)) {
    const call = part.functionCall;
    return { type: 'tool_call', id: ids.call(call.name, call.id), name: call.name, arguments: argumentsFromObject(call.args ?? {}), ...signed(part) };
  }
  if (isPresent(part.functionResponse)) throw invalidField(`${path}.functionResponse`, 'function responses belong in user turns');
  for (const key of SERVER_TOOL_PARTS) {
    if (isPresent(openMember(part, key)))
      throw invalidField(`${path}.${key}`, `"${key}" belongs to a Gemini server-side tool and cannot be translated`, 'unsupported_parameter');
  }
  let image: ImageBlock | undefined;
  if (isPresent(part.inlineData)) image = decodeInlineData(part.inlineData, `${path}.inlineData`);
  else if (isPresent(part.fileData)) image = decodeFileData(part.fileData, `${path}.fileData`);
  if (image === undefined) {
    throw invalidField(path, `a part with ${Object.keys(part).join(', ') || 'no data'} cannot be translated to another protocol`, 'unsupported_parameter');
  }
  // The IR keeps signatures on text and tool calls only.
  if (signature !== undefined)
    unmapped.push({ path: `${path}.thoughtSignature`, value: signature, disposition: 'warn', reason: 'thought signature on a media part' });
  return image;
}

/**
 * Claude's thinking, carried by the gateway in a function call's thoughtSignature (the slot Gemini
 * clients keep in their history): the Claude block goes back in front of the call, which itself
 * has no Gemini signature.
 */
function withCarriedThinking(block: ContentBlock): ContentBlock[] {
  if (block.type !== 'tool_call' || block.signature === undefined) return [block];
  const thinking = thinkingFromCarrier(block.signature.value);
  if (thinking === undefined) return [block];
  const { signature: _carrier, ...call } = block;
  return [thinking, call];
}

function warnTuning(part: GeminiPart, path: string, unmapped: UnmappedField[]): void {
  for (const key of PART_TUNING) {
    const value = openMember(part, key);
    if (isPresent(value)) unmapped.push({ path: `${path}.${key}`, value, disposition: 'warn', reason: 'Gemini media handling hint' });
  }
}

/** The part's thoughtSignature as the IR's opaque, Gemini-issued signature. */
function signed(part: GeminiPart): { signature?: OpaqueSignature } {
  return typeof part.thoughtSignature === 'string' ? { signature: { origin: 'gemini', value: part.thoughtSignature } } : {};
}

function hasData(part: GeminiPart): boolean {
  return ['functionCall', 'functionResponse', 'inlineData', 'fileData', ...SERVER_TOOL_PARTS].some((key) => isPresent(openMember(part, key)));
}

function decodeInlineData(blob: GeminiBlob, path: string): ImageBlock {
  if (!blob.mimeType.startsWith('image/')) {
    throw invalidField(`${path}.mimeType`, `"${blob.mimeType}" data cannot be translated: other protocols take images only`, 'unsupported_parameter');
  }
  return { type: 'image', source: { kind: 'base64', mediaType: blob.mimeType, data: blob.data } };
}

/** Files uploaded to Google (Files API, Cloud Storage) cannot be read by another provider. */
const GOOGLE_HOSTED = /^(gs:\/\/|https:\/\/generativelanguage\.googleapis\.com\/)/;

function decodeFileData(file: GeminiFileData, path: string): ImageBlock {
  if (file.mimeType !== undefined && !file.mimeType.startsWith('image/')) {
    throw invalidField(`${path}.mimeType`, `"${file.mimeType}" files cannot be translated: other protocols take images only`, 'unsupported_parameter');
  }
  if (GOOGLE_HOSTED.test(file.fileUri)) {
    throw invalidField(`${path}.fileUri`, 'a file stored at Google cannot be read by another provider', 'unsupported_parameter');
  }
  return { type: 'image', source: { kind: 'url', url: file.fileUri } };
}

function decodeFunctionResponse(
  part: GeminiPart,
  response: GeminiFunctionResponse,
  path: string,
  ids: RequestCallIds,
  unmapped: UnmappedField[],
): ToolResultBlock {
  const at = `${path}.functionResponse`;
  for (const key of ['willContinue', 'scheduling'] as const) {
    if (isPresent(response[key]))
      unmapped.push({ path: `${at}.${key}`, value: response[key], disposition: 'warn', reason: 'non-blocking function scheduling' });
  }
  if (typeof part.thoughtSignature === 'string') {
    unmapped.push({ path: `${path}.thoughtSignature`, value: part.thoughtSignature, disposition: 'warn', reason: 'thought signature on a function response' });
  }
  const callId = ids.result(response.name, response.id, at);
  const { text, isError } = unwrapToolResponse(response.response);
  const content: (TextBlock | ImageBlock)[] = text === '' ? [] : [{ type: 'text', text }];
  (response.parts ?? []).forEach((media, k) => {
    const mediaPath = `${at}.parts[${k}]`;
    if (isPresent(media.inlineData)) content.push(decodeInlineData(media.inlineData, `${mediaPath}.inlineData`));
    else if (isPresent(media.fileData)) content.push(decodeFileData(media.fileData, `${mediaPath}.fileData`));
    else throw invalidField(mediaPath, 'this function response part cannot be translated', 'unsupported_parameter');
  });
  return { type: 'tool_result', callId, content, isError };
}

function decodeTools(tools: GeminiTool[], unmapped: UnmappedField[]): ToolDefinition[] {
  const out: ToolDefinition[] = [];
  tools.forEach((tool, i) => {
    for (const key of Object.keys(tool)) {
      if (key === 'functionDeclarations' || !isPresent(openMember(tool, key))) continue;
      throw invalidField(`tools[${i}].${key}`, `the Gemini tool "${key}" runs at Google and cannot be translated`, 'unsupported_parameter');
    }
    (tool.functionDeclarations ?? []).forEach((d, j) => out.push(decodeDeclaration(d, `tools[${i}].functionDeclarations[${j}]`, unmapped)));
  });
  return out;
}

function decodeDeclaration(declaration: GeminiFunctionDeclaration, path: string, unmapped: UnmappedField[]): ToolDefinition {
  for (const key of ['response', 'responseJsonSchema'] as const) {
    if (isPresent(declaration[key])) unmapped.push({ path: `${path}.${key}`, value: declaration[key], disposition: 'warn', reason: 'function result schema' });
  }
  if (isPresent(declaration.behavior))
    unmapped.push({ path: `${path}.behavior`, value: declaration.behavior, disposition: 'warn', reason: 'non-blocking function behavior' });
  const parameters =
    declaration.parametersJsonSchema ?? (isPresent(declaration.parameters) ? openApiToJsonSchema(declaration.parameters) : { type: 'object', properties: {} });
  return {
    name: declaration.name,
    ...(declaration.description !== undefined && { description: declaration.description }),
    parameters,
  };
}

function decodeToolConfig(config: GeminiToolConfig, tools: readonly ToolDefinition[], unmapped: UnmappedField[]): ToolChoice | undefined {
  for (const key of Object.keys(config)) {
    const value = openMember(config, key);
    if (key !== 'functionCallingConfig' && isPresent(value))
      unmapped.push({ path: `toolConfig.${key}`, value, disposition: 'warn', reason: 'Gemini tool configuration' });
  }
  const calling = config.functionCallingConfig;
  if (!isPresent(calling)) return undefined;
  const path = 'toolConfig.functionCallingConfig';
  if (isPresent(calling.streamFunctionCallArguments)) {
    unmapped.push({
      path: `${path}.streamFunctionCallArguments`,
      value: calling.streamFunctionCallArguments,
      disposition: 'warn',
      reason: 'argument streaming (Vertex AI)',
    });
  }
  const allowed = calling.allowedFunctionNames ?? [];
  if (calling.mode === undefined && allowed.length === 0) return undefined;
  let choice: ToolChoice;
  switch (calling.mode ?? 'AUTO') {
    case 'AUTO':
    case 'MODE_UNSPECIFIED':
      choice = { type: 'auto' };
      break;
    case 'ANY':
      choice = { type: 'required' };
      break;
    case 'NONE':
      choice = { type: 'none' };
      break;
    case 'VALIDATED':
      // Calls or text, like AUTO; only the schema validation of the calls is lost.
      unmapped.push({ path: `${path}.mode`, value: calling.mode, disposition: 'warn', reason: 'schema-validated function calling' });
      choice = { type: 'auto' };
      break;
    default:
      throw invalidField(`${path}.mode`, `function calling mode "${calling.mode}" cannot be translated`, 'unsupported_parameter');
  }
  const only = allowed.length === 1 ? allowed[0] : undefined;
  if (calling.mode === 'ANY' && only !== undefined) return { type: 'tool', name: only };
  // A list that allows every declared function restricts nothing; a true subset has no IR form.
  if (allowed.length > 0 && !tools.every((tool) => allowed.includes(tool.name))) {
    unmapped.push({ path: `${path}.allowedFunctionNames`, value: allowed, disposition: 'reject', reason: 'a restriction to some of the declared functions' });
  }
  return choice;
}

function decodeGenerationConfig(config: GeminiGenerationConfig, unmapped: UnmappedField[]): GenerationFields {
  for (const field of collectUnmapped(config, MAPPED_GENERATION_FIELDS, GENERATION_FIELD_RULES)) {
    unmapped.push({ ...field, path: `generationConfig.${field.path}` });
  }
  const responseFormat = decodeResponseFormat(config, unmapped);
  const reasoning = isPresent(config.thinkingConfig) ? decodeThinkingConfig(config.thinkingConfig, unmapped) : undefined;
  return {
    ...(typeof config.maxOutputTokens === 'number' && { maxTokens: config.maxOutputTokens }),
    ...(typeof config.temperature === 'number' && { temperature: config.temperature }),
    ...(typeof config.topP === 'number' && { topP: config.topP }),
    ...(typeof config.topK === 'number' && { topK: config.topK }),
    ...(typeof config.seed === 'number' && { seed: config.seed }),
    ...(Array.isArray(config.stopSequences) && { stopSequences: config.stopSequences }),
    ...(responseFormat !== undefined && { responseFormat }),
    ...(reasoning !== undefined && { reasoning }),
  };
}

function decodeResponseFormat(config: GeminiGenerationConfig, unmapped: UnmappedField[]): ResponseFormat | undefined {
  const mime = config.responseMimeType ?? undefined;
  const schema = config.responseJsonSchema ?? (isPresent(config.responseSchema) ? openApiToJsonSchema(config.responseSchema) : undefined);
  if (mime === 'application/json') return schema !== undefined ? { type: 'json_schema', schema } : { type: 'json_object' };
  if (mime !== undefined && mime !== 'text/plain') {
    unmapped.push({ path: 'generationConfig.responseMimeType', value: mime, disposition: 'reject', reason: `response MIME type "${mime}"` });
    return undefined;
  }
  if (schema !== undefined) throw invalidField('generationConfig.responseMimeType', 'a response schema needs responseMimeType "application/json"');
  return mime === 'text/plain' ? { type: 'text' } : undefined;
}

function isPresent<T>(value: T | null | undefined): value is T {
  return value !== undefined && value !== null;
}
