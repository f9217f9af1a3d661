import type { RuntimeConfig } from '../config/runtime-config.ts';

/** What asked for a configuration change (recorded with each applied version). */
export type ReloadTrigger = 'start' | 'sighup' | 'reload' | 'apply' | 'rollback';

/**
 * The answer to a reload or an apply. Refused: nothing changed, and `problems` say why, each as
 * `file:line:column: path: message` (the form a refused start prints).
 */
export type ReloadOutcome =
  | { readonly applied: true; readonly config: RuntimeConfig; readonly previous: RuntimeConfig; readonly unchanged: boolean; readonly text: string }
  | { readonly applied: false; readonly problems: readonly string[] };

/**
 * A running gateway's configuration, changed while it serves: requests that start after a change
 * get the new configuration, requests in flight finish on theirs. Changes are serialized.
 */
export interface ConfigControl {
  current(): RuntimeConfig;
  /** The YAML text the running configuration was loaded from (for history and rollback). */
  currentText(): string;
  /** Re-reads the config file, the operator catalog and the secrets they reference; applies or refuses whole. */
  reloadFromFile(trigger: 'sighup' | 'reload'): Promise<ReloadOutcome>;
  /** Problems of this YAML as the config file (relative paths resolved against the config file's directory); applies nothing. */
  validateText(text: string): Promise<readonly string[]>;
  /** Validates and applies this YAML text (does NOT write the file; the admin side writes it). */
  applyText(text: string, trigger: 'apply' | 'rollback'): Promise<ReloadOutcome>;
  /** Called after every applied change (history keeps versions from this). */
  onApplied(listener: (outcome: Extract<ReloadOutcome, { applied: true }>, trigger: ReloadTrigger) => void): void;
}
