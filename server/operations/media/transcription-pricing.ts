import type { ModelRoute } from '../../config/runtime-config.ts';
import type { OperationPricing } from '../../gateway/admission.ts';
import type { Exchange } from '../../gateway/gateway-context.ts';
import { ZERO_USAGE, type Usage } from '../../ir/index.ts';
import type { OnAnswer } from '../relay-answer.ts';
import { chargeUnits, PER_AUDIO_SECOND, PER_INPUT_TOKEN } from '../unit-pricing.ts';

/**
 * Audio bytes a second of speech takes at least (8 kbit/s, the lowest common voice codec rate):
 * the worst case reserved for an upload is its length read at this rate.
 */
const WORST_BYTES_PER_SECOND = 1000;
/**
 * Tokens a second of audio can be reported as, input and output together, at most: OpenAI's
 * gpt-4o-transcribe counts about 10 audio tokens a second in and a few text tokens out; this
 * leaves room for a denser model. Only a tpm reads it (a whisper answer reports seconds, no tokens).
 */
const WORST_TOKENS_PER_SECOND = 50;
/** The rate an estimate without a reported duration assumes (128 kbit/s, a common MP3/M4A rate). */
export const ESTIMATE_BYTES_PER_SECOND = 16_000;

/** What the upstream's answer said it used, when it said. */
interface Reported {
  seconds?: number;
  usage?: Usage;
}

/**
 * Transcription and translation: billed per audio second (`operation_prices.audio.per_audio_second`)
 * from the answer's own report — whisper's `duration` (verbose_json), `usage.seconds`
 * (`type: duration`) — or per input token (`operation_prices.audio.input`) when the answer reports
 * tokens (gpt-4o-transcribe's `usage`); with neither (json, text, srt answers of whisper), the
 * seconds are estimated from the upload's bytes at 128 kbit/s, and the record says so.
 */
export function transcriptionPricing(exchange: Exchange, worstBytes: number, bytesRead: () => number): { pricing: OperationPricing; onAnswer: OnAnswer } {
  const reported: Reported = {};
  const onAnswer: OnAnswer = (body, headers) => {
    Object.assign(reported, readReport(body, headers['content-type']));
    if (reported.seconds === undefined && reported.usage === undefined) {
      const uploadBytes = bytesRead();
      exchange.meter.warnings = [
        {
          kind: 'estimated',
          path: 'usage',
          message: `the upstream reported no duration; the gateway estimated ${estimatedSeconds(uploadBytes)} s from the upload's ${uploadBytes} bytes`,
        },
      ];
    }
    return reported.usage ?? null;
  };
  const worstSeconds = worstBytes / WORST_BYTES_PER_SECOND;
  const pricing: OperationPricing = {
    worstCaseTokens: () => Math.ceil(worstSeconds * WORST_TOKENS_PER_SECOND),
    worstCase: (lane) => {
      const { per_audio_second: perSecond, input } = lane.operationPrices.audio ?? {};
      if (perSecond === undefined && input === undefined) return undefined;
      const bySeconds = perSecond === undefined ? 0n : chargeUnits(worstSeconds, perSecond, PER_AUDIO_SECOND);
      const byTokens = input === undefined ? 0n : chargeUnits(worstBytes, input, PER_INPUT_TOKEN);
      return bySeconds > byTokens ? bySeconds : byTokens;
    },
    settle(summary) {
      return { usage: reported.usage ?? ZERO_USAGE, costMicrocents: cost(summary.lane, reported, bytesRead()) };
    },
  };
  return { pricing, onAnswer };
}

function cost(lane: ModelRoute, reported: Reported, uploadBytes: number): bigint {
  const { per_audio_second: perSecond, input } = lane.operationPrices.audio ?? {};
  if (reported.usage !== undefined && input !== undefined) return chargeUnits(reported.usage.inputTokens + reported.usage.outputTokens, input, PER_INPUT_TOKEN);
  if (perSecond === undefined) return 0n;
  return chargeUnits(reported.seconds ?? estimatedSeconds(uploadBytes), perSecond, PER_AUDIO_SECOND);
}

function estimatedSeconds(bytes: number): number {
  return Math.ceil(bytes / ESTIMATE_BYTES_PER_SECOND);
}

/** The duration or token usage of a JSON answer (text, srt and vtt answers report none). */
function readReport(body: Buffer | undefined, contentType: string | string[] | undefined): Reported {
  if (body === undefined || typeof contentType !== 'string' || !contentType.includes('json')) return {};
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
  } catch {
    return {};
  }
  const usage = json.usage as Record<string, unknown> | undefined;
  if (usage?.type === 'tokens' && typeof usage.input_tokens === 'number') {
    return { usage: { ...ZERO_USAGE, inputTokens: usage.input_tokens, outputTokens: typeof usage.output_tokens === 'number' ? usage.output_tokens : 0 } };
  }
  if (usage?.type === 'duration' && typeof usage.seconds === 'number') return { seconds: usage.seconds };
  if (typeof json.duration === 'number') return { seconds: json.duration };
  return {};
}
