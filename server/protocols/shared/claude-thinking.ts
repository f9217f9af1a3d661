import type { ChatRequest, Message, ProtocolId } from '../../ir/index.ts';
import type { TranslationWarning } from '../codec.ts';
import { budgetOf, EFFORT_BUDGET, isReasoningOff } from './reasoning.ts';
import { dropped, reshaped } from './warnings.ts';

/** Claude's rules for `thinking.budget_tokens`: at least this, and below max_tokens. */
export const CLAUDE_MIN_THINKING_BUDGET = 1024;

/** Sampling to send: Claude accepts only some of it while thinking. */
export interface ClaudeSampling {
  readonly temperature?: number;
  readonly topP?: number;
  readonly topK?: number;
}

export interface ClaudeThinking {
  /** `{type: enabled, budget_tokens}`; undefined: send no thinking (off is Claude's default). */
  readonly thinking?: { type: 'enabled'; budget_tokens: number };
  /** max_tokens to send, raised when the client set none and the budget needs room. */
  readonly maxTokens: number | undefined;
  readonly sampling: ClaudeSampling;
}

/** The client's sampling as it is (thinking off). */
export function clientSampling(request: ChatRequest): ClaudeSampling {
  return {
    ...(request.temperature !== undefined && { temperature: request.temperature }),
    ...(request.topP !== undefined && { topP: request.topP }),
    ...(request.topK !== undefined && { topK: request.topK }),
  };
}

/**
 * While thinking, Claude refuses a temperature other than 1, any top_k, and a top_p under 0.95:
 * the first two are dropped, the last raised, each with a warning (the thinking was asked for too).
 */
function thinkingSampling(request: ChatRequest, warnings: TranslationWarning[]): ClaudeSampling {
  const { temperature, topP, topK } = request;
  if (temperature !== undefined && temperature !== 1) warnings.push(dropped('temperature', 'a temperature other than 1 (Claude takes none while thinking)'));
  if (topK !== undefined) warnings.push(dropped('top_k', 'top-k sampling (Claude takes none while thinking)'));
  if (topP !== undefined && topP < 0.95) warnings.push(reshaped('top_p', `top_p ${topP} raised to 0.95, the least Claude takes while thinking`));
  return {
    ...(temperature === 1 && { temperature }),
    ...(topP !== undefined && { topP: Math.max(topP, 0.95) }),
  };
}

/**
 * The IR reasoning setting as Claude's extended thinking (Anthropic Messages, and Claude on Bedrock
 * via additionalModelRequestFields). A budget below 1024 is raised to 1024. The budget must stay
 * below max_tokens: when the client set its own maximum, that cap wins and the budget is lowered
 * to fit (thinking is dropped when even 1024 does not fit); when it set none, the lane's maximum
 * is sent and a budget that does not fit below it is lowered to three quarters of it. Thinking is left off where Claude refuses it (a
 * forced tool call, a tool loop without Claude's thinking to send back), and the sampling it
 * refuses is adjusted. Each change is a warning.
 */
export function claudeThinking(request: ChatRequest, laneMax: number, warnings: TranslationWarning[], own: ProtocolId): ClaudeThinking {
  const setting = request.reasoning;
  const clientMax = request.maxTokens;
  const off: ClaudeThinking = { maxTokens: clientMax, sampling: clientSampling(request) };
  if (setting === undefined || isReasoningOff(setting)) return off;
  if (loopWithoutThinking(request.messages, own)) {
    warnings.push(
      dropped(
        'reasoning',
        "extended thinking for this request (the tool loop's last assistant turn has no Claude thinking to send back, which Claude requires when thinking is on)",
      ),
    );
    return off;
  }
  if (request.toolChoice?.type === 'required' || request.toolChoice?.type === 'tool') {
    warnings.push(dropped('reasoning', 'extended thinking (Claude cannot think when a tool call is forced)'));
    return off;
  }
  let budget = budgetOf(setting) ?? EFFORT_BUDGET.medium;
  if (budget < CLAUDE_MIN_THINKING_BUDGET) {
    warnings.push(reshaped('reasoning.budget_tokens', `thinking budget ${budget} raised to ${CLAUDE_MIN_THINKING_BUDGET}, the least Claude accepts`));
    budget = CLAUDE_MIN_THINKING_BUDGET;
  }
  const maxTokens = clientMax;
  if (clientMax === undefined) {
    // The lane's maximum is the model's output ceiling (catalog) or the operator's: it is not
    // raised; the budget gives up a quarter of it to the answer instead.
    if (laneMax <= budget) {
      const lowered = Math.floor((laneMax * 3) / 4);
      if (lowered < CLAUDE_MIN_THINKING_BUDGET) {
        warnings.push(
          dropped(
            'reasoning',
            `extended thinking (the lane's max_tokens ${laneMax} leaves no room for Claude's least budget of ${CLAUDE_MIN_THINKING_BUDGET})`,
          ),
        );
        return off;
      }
      warnings.push(
        reshaped(
          'reasoning.budget_tokens',
          `thinking budget ${budget} lowered to ${lowered}: Claude needs it below max_tokens (the lane's ${laneMax}), with room for the answer`,
        ),
      );
      budget = lowered;
    }
  } else if (budget >= clientMax) {
    if (clientMax - 1 < CLAUDE_MIN_THINKING_BUDGET) {
      warnings.push(
        dropped('reasoning', `extended thinking (max_tokens ${clientMax} leaves no room for Claude's least budget of ${CLAUDE_MIN_THINKING_BUDGET})`),
      );
      return off;
    }
    warnings.push(
      reshaped('reasoning.budget_tokens', `thinking budget ${budget} lowered to ${clientMax - 1}: Claude needs it below max_tokens (${clientMax})`),
    );
    budget = clientMax - 1;
  }
  return { thinking: { type: 'enabled', budget_tokens: budget }, maxTokens, sampling: thinkingSampling(request, warnings) };
}

/**
 * With thinking on, Claude refuses a history whose last assistant turn calls tools without
 * starting with its own signed thinking block (the tool loop is one turn). Clients of other
 * protocols cannot send Claude's thinking back, so such a continuation runs without thinking.
 */
function loopWithoutThinking(history: readonly Message[], own: ProtocolId): boolean {
  for (let i = history.length - 1; i >= 0; i--) {
    const message = history[i] as Message;
    if (message.role !== 'assistant') continue;
    if (!message.content.some((block) => block.type === 'tool_call')) return false;
    const first = message.content[0];
    return !(first?.type === 'reasoning' && first.origin === own && (first.signature !== undefined || first.redacted !== undefined));
  }
  return false;
}
