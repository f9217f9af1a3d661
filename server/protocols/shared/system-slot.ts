import type { Message } from '../../ir/index.ts';
import type { TranslationWarning } from '../codec.ts';
import { reshaped } from './warnings.ts';

/**
 * Protocols with a single system slot (Anthropic `system`, Gemini `systemInstruction`, Bedrock
 * `system`) take every system and developer message there. One given after the conversation has
 * started loses its position, so moving it is reported.
 */
export class SystemSlot {
  private conversationStarted = false;
  private readonly slotName: string;

  constructor(slotName: string) {
    this.slotName = slotName;
  }

  /** Whether `message` goes to the slot (the caller encodes it there) rather than the conversation. */
  takes(message: Message, path: string, warnings: TranslationWarning[]): boolean {
    if (message.role !== 'system' && message.role !== 'developer') {
      this.conversationStarted = true;
      return false;
    }
    if (this.conversationStarted) {
      warnings.push(reshaped(path, `a ${message.role} message in the middle of the conversation was moved to ${this.slotName}`));
    }
    return true;
  }
}
