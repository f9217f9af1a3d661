/** The six wire protocols, each spoken both ways (DESIGN.md, "The six wire protocols"). */
export const PROTOCOL_IDS = ['openai', 'responses', 'anthropic', 'gemini', 'bedrock', 'cohere'] as const;
export type ProtocolId = (typeof PROTOCOL_IDS)[number];
