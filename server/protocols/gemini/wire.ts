// TypeScript views of the Gemini generateContent wire format (REST JSON, lowerCamelCase), as far as
// the codec reads or writes it. The authority is spec/protocols/gemini/*.schema.json.

export interface GeminiBlob { mimeType: string; data: string; [key: string]: unknown }
export interface GeminiFileData { mimeType?: string; fileUri: string; [key: string]: unknown }

export interface GeminiFunctionCall {
  name: string;
  args?: Record<string, unknown>;
  /** Sent by some models; the Gemini API has refused it in requests, so the codec never writes it. */
  id?: string;
  [key: string]: unknown;
}

/** Media attached to a function response (Gemini 3 multimodal function results). */
export interface GeminiFunctionResponsePart { inlineData?: GeminiBlob; fileData?: GeminiFileData; [key: string]: unknown }

export interface GeminiFunctionResponse {
  name: string;
  response: Record<string, unknown>;
  id?: string;
  parts?: GeminiFunctionResponsePart[];
  [key: string]: unknown;
}

/** A part holds one kind of data (`text`, `inlineData`, `functionCall`, ...) plus optional flags. */
export interface GeminiPart {
  text?: string;
  thought?: boolean;
  thoughtSignature?: string;
  inlineData?: GeminiBlob;
  fileData?: GeminiFileData;
  functionCall?: GeminiFunctionCall;
  functionResponse?: GeminiFunctionResponse;
  [key: string]: unknown;
}

export interface GeminiContent { role?: string; parts?: GeminiPart[] }

export interface GeminiFunctionDeclaration {
  name: string;
  description?: string;
  /** The OpenAPI 3.0 subset Gemini calls Schema (types may be upper case: `OBJECT`). */
  parameters?: unknown;
  /** Plain JSON Schema; exclusive with `parameters`. */
  parametersJsonSchema?: unknown;
  [key: string]: unknown;
}

export interface GeminiTool { functionDeclarations?: GeminiFunctionDeclaration[]; [key: string]: unknown }

export interface GeminiFunctionCallingConfig { mode?: string; allowedFunctionNames?: string[]; [key: string]: unknown }
export interface GeminiToolConfig { functionCallingConfig?: GeminiFunctionCallingConfig; [key: string]: unknown }

export interface GeminiGenerationConfig {
  maxOutputTokens?: number;
  temperature?: number;
  topP?: number;
  topK?: number;
  seed?: number;
  stopSequences?: string[];
  candidateCount?: number;
  responseMimeType?: string;
  responseSchema?: unknown;
  responseJsonSchema?: unknown;
  [key: string]: unknown;
}

export interface GeminiUsageMetadata {
  promptTokenCount?: number;
  candidatesTokenCount?: number;
  cachedContentTokenCount?: number;
  thoughtsTokenCount?: number;
  toolUsePromptTokenCount?: number;
  totalTokenCount?: number;
  [key: string]: unknown;
}

export interface GeminiCandidate {
  content?: { role?: string; parts?: GeminiPart[] };
  finishReason?: string;
  index?: number;
  [key: string]: unknown;
}

export interface GeminiResponse {
  candidates?: GeminiCandidate[];
  usageMetadata?: GeminiUsageMetadata;
  modelVersion?: string;
  responseId?: string;
  createTime?: string;
  promptFeedback?: { blockReason?: string; [key: string]: unknown };
  [key: string]: unknown;
}

/** google.rpc.Status as the REST API sends it, for HTTP errors and in-stream errors alike. */
export interface GeminiErrorObject {
  code?: number;
  message?: string;
  status?: string;
  details?: unknown[];
}

export interface GeminiErrorBody { error: GeminiErrorObject }

/** A streamed chunk: a partial response, or an error after HTTP 200. */
export type GeminiStreamChunk = GeminiResponse & { error?: GeminiErrorObject };
