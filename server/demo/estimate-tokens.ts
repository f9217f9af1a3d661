/** The demo has no tokenizer; ~4 characters per token is the usual rule of thumb. */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
