import type { ChatRequest, ContentBlock } from '../ir/index.ts';
import { contentMessages, contentPart, type ContentMessage, type RequestContent } from '../observability/request-content.ts';

/**
 * Collects a request's prompt and completion while it runs, only when the operator asked for
 * content capture (`otlp.capture_content`); otherwise no exchange has one and nothing is kept.
 */
export class ContentCapture {
  private input: ContentMessage[] = [];
  private output: ContentBlock[] | undefined;
  private streamed = '';

  /** The prompt, from the request decoded to the IR. */
  prompt(request: ChatRequest): void {
    this.input = contentMessages(request.messages);
  }

  /** A whole answer's content. */
  answer(content: readonly ContentBlock[]): void {
    this.output = [...content];
  }

  /** Text of a streamed answer, delta by delta. */
  streamedText(text: string): void {
    this.streamed += text;
  }

  content(): RequestContent {
    const parts = this.output?.map(contentPart) ?? (this.streamed === '' ? [] : [{ type: 'text' as const, content: this.streamed }]);
    return { input: this.input, output: parts.length === 0 ? [] : [{ role: 'assistant', parts }] };
  }
}
