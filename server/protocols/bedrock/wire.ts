// TypeScript views of the Bedrock Converse / ConverseStream wire format (restJson1: the Smithy
// members in camelCase, blobs as base64 strings, documents as plain JSON), as far as the codec
// reads or writes it. Unions are objects with exactly one member set. The authority is
// spec/protocols/bedrock/*.schema.json.

export interface BedrockCachePoint { type: string; ttl?: string }

export interface BedrockImage {
  format: string;
  source: { bytes?: string; s3Location?: { uri: string; bucketOwner?: string }; [member: string]: unknown };
}

export interface BedrockToolUse { toolUseId: string; name: string; input: unknown; type?: string }

export interface BedrockToolResultContent {
  text?: string;
  json?: unknown;
  image?: BedrockImage;
  [member: string]: unknown;
}

export interface BedrockToolResult {
  toolUseId: string;
  content: BedrockToolResultContent[];
  status?: string;
  [member: string]: unknown;
}

export interface BedrockReasoningContent {
  reasoningText?: { text: string; signature?: string };
  /** Encrypted reasoning, a blob: base64 on the wire. */
  redactedContent?: string;
}

export interface BedrockContentBlock {
  text?: string;
  image?: BedrockImage;
  toolUse?: BedrockToolUse;
  toolResult?: BedrockToolResult;
  reasoningContent?: BedrockReasoningContent;
  cachePoint?: BedrockCachePoint;
  guardContent?: { text?: { text: string; qualifiers?: string[] }; [member: string]: unknown };
  citationsContent?: { content?: { text?: string }[]; citations?: unknown[] };
  [member: string]: unknown;
}

export interface BedrockMessage {
  role: 'user' | 'assistant' | 'system';
  content: BedrockContentBlock[];
}

export interface BedrockSystemBlock {
  text?: string;
  cachePoint?: BedrockCachePoint;
  guardContent?: BedrockContentBlock['guardContent'];
  [member: string]: unknown;
}

export interface BedrockToolSpec { name: string; description?: string; inputSchema: { json?: unknown }; strict?: boolean }

export interface BedrockTool {
  toolSpec?: BedrockToolSpec;
  cachePoint?: BedrockCachePoint;
  systemTool?: { name: string };
  [member: string]: unknown;
}

export interface BedrockToolChoice {
  auto?: Record<string, never>;
  any?: Record<string, never>;
  tool?: { name: string };
}

export interface BedrockToolConfig { tools: BedrockTool[]; toolChoice?: BedrockToolChoice }

export interface BedrockInferenceConfig { maxTokens?: number; temperature?: number; topP?: number; stopSequences?: string[] }

export interface BedrockOutputConfig {
  textFormat?: { type: string; structure: { jsonSchema?: { schema: string; name?: string; description?: string } } };
  effort?: string;
}

export interface BedrockUsage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  cacheReadInputTokens?: number;
  cacheWriteInputTokens?: number;
  [key: string]: unknown;
}

export interface BedrockConverseResponse {
  output: { message?: { role: string; content: BedrockContentBlock[] } };
  stopReason: string;
  usage: BedrockUsage;
  metrics: { latencyMs: number };
  additionalModelResponseFields?: Record<string, unknown>;
  [key: string]: unknown;
}

/** ConverseStream event payloads, by `:event-type`. */
export interface BedrockContentBlockStart {
  contentBlockIndex: number;
  start: { toolUse?: { toolUseId: string; name: string; type?: string }; [member: string]: unknown };
}

export interface BedrockContentBlockDelta {
  contentBlockIndex: number;
  delta: {
    text?: string;
    toolUse?: { input: string };
    reasoningContent?: { text?: string; signature?: string; redactedContent?: string };
    [member: string]: unknown;
  };
}

export interface BedrockMessageStop { stopReason: string; additionalModelResponseFields?: Record<string, unknown> }

export interface BedrockMetadata { usage?: BedrockUsage; metrics?: { latencyMs: number } }

/** An HTTP error body (Bedrock writes `message`; some AWS front ends write `Message`). */
export interface BedrockErrorBody { message?: string; Message?: string; __type?: string }
