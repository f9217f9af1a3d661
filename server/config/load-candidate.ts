import { ConfigError, type ConfigProblem } from './config-error.ts';
import { loadConfigText, type LoadOptions } from './load-config.ts';
import { restartProblems } from './restart-settings.ts';
import type { RuntimeConfig } from './runtime-config.ts';

/** A configuration offered to a running gateway: its text, where it counts as coming from, and how to load it. */
export interface Candidate {
  readonly text: string;
  /** The config file's name (for messages) and the directory its relative paths are resolved against. */
  readonly file: string;
  readonly baseDir: string;
  readonly options: LoadOptions;
  /** The running gateway's configuration as loaded at start: restart-only settings must stay as they are there. */
  readonly base: RuntimeConfig;
}

export type CandidateVerdict = { readonly config: RuntimeConfig } | { readonly problems: readonly ConfigProblem[] };

/** Loaded exactly as at start (schema, catalog, secrets), then judged against the running gateway. Plain data both ways. */
export function loadCandidate(candidate: Candidate): CandidateVerdict {
  let config: RuntimeConfig;
  try {
    config = loadConfigText(candidate.text, candidate.file, candidate.baseDir, candidate.options);
  } catch (error) {
    if (error instanceof ConfigError) return { problems: error.problems };
    throw error;
  }
  const restart = restartProblems(candidate.base, config, candidate.text);
  return restart.length > 0 ? { problems: restart } : { config };
}
