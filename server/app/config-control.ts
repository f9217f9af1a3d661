import type { Worker } from 'node:worker_threads';
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { formatProblem } from '../config/config-error.ts';
import { EMBEDDED_DEFAULT_SOURCE } from '../config/embedded-default.ts';
import { ConfigLoader } from '../config/config-loader.ts';
import type { Candidate } from '../config/load-candidate.ts';
import type { LoadOptions } from '../config/load-config.ts';
import { sameConfiguration } from '../config/restart-settings.ts';
import type { RuntimeConfig } from '../config/runtime-config.ts';
import type { Logger } from '../shared/logger.ts';
import type { ConfigMetrics } from '../observability/metrics-config.ts';

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
  /**
   * A change refused before it reached this control (the admin side's own checks: no file to
   * write, a text that does not validate): counted and logged as every refusal is, once.
   */
  refuse(trigger: 'apply' | 'rollback', problems: readonly string[]): ReloadOutcome;
  /** Called after every applied change (history keeps versions from this); not for an unchanged one. */
  onApplied(listener: (outcome: Extract<ReloadOutcome, { applied: true }>, trigger: ReloadTrigger) => void): void;
}

/** What the control needs from the running gateway (start-gateway.ts). */
export interface ConfigControlDeps {
  /** The configuration as loaded at start (restart-only settings are judged against it). */
  readonly loaded: RuntimeConfig;
  /** The configuration running now (the loaded one as start made it run: demo upstream, workers). */
  readonly running: RuntimeConfig;
  readonly text: string;
  readonly loadOptions: LoadOptions;
  /** The loaded configuration as it would run (what start does to it: the demo upstream's address, the worker count). */
  runnable(loaded: RuntimeConfig): Promise<RuntimeConfig>;
  /** Why the gateway could not serve this configuration's certificates (TLS on/off, a key not matching). */
  tlsProblems(next: RuntimeConfig): string[];
  /**
   * Every thread switches to `next`, or none does (and the reasons come back). `cpuMs`: CPU time
   * the switch took on this thread, and the most a worker thread took to prepare (both block
   * requests on their thread meanwhile).
   */
  switchTo(next: RuntimeConfig): Promise<{ problems: string[]; cpuMs: number; workerCpuMs: number }>;
  readonly metrics?: ConfigMetrics;
  readonly log: Logger;
}

type Applied = Extract<ReloadOutcome, { applied: true }>;

/**
 * The running configuration and its changes, one at a time (a reload waits for the one before it
 * to end). A candidate is loaded exactly as at start (schema, catalog, secrets), then checked for
 * restart-only settings and usable certificates; only then does every thread switch.
 */
export class GatewayConfigControl implements ConfigControl {
  private readonly deps: ConfigControlDeps;
  private running: RuntimeConfig;
  private text: string;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly listeners: ((outcome: Applied, trigger: ReloadTrigger) => void)[] = [];
  private readonly loader: ConfigLoader;

  constructor(deps: ConfigControlDeps) {
    this.deps = deps;
    this.loader = new ConfigLoader((message) => deps.log.warn(message));
    // Started with the gateway and kept: a reload never waits for, or competes with, a thread's start.
    this.loader.start(this.candidate(deps.text));
    this.running = deps.running;
    this.text = deps.text;
  }

  current(): RuntimeConfig {
    return this.running;
  }

  currentText(): string {
    return this.text;
  }

  onApplied(listener: (outcome: Applied, trigger: ReloadTrigger) => void): void {
    this.listeners.push(listener);
  }

  reloadFromFile(trigger: 'sighup' | 'reload'): Promise<ReloadOutcome> {
    return this.serial(async () => {
      const file = this.deps.loaded.source;
      if (file === EMBEDDED_DEFAULT_SOURCE)
        return this.refused(trigger, ['the gateway runs on its embedded default configuration: there is no file to read again (start it with --config FILE)']);
      let text: string;
      try {
        text = await readFile(file, 'utf8'); // not readFileSync: this thread serves requests too
      } catch (error) {
        return this.refused(trigger, [
          formatProblem({ file, path: '', message: `cannot read the configuration (${(error as NodeJS.ErrnoException).code ?? 'error'})` }),
        ]);
      }
      return this.change(text, trigger);
    });
  }

  validateText(text: string): Promise<readonly string[]> {
    return this.serial(async () => {
      const checked = await this.check(text);
      return 'problems' in checked ? checked.problems : [];
    });
  }

  applyText(text: string, trigger: 'apply' | 'rollback'): Promise<ReloadOutcome> {
    return this.serial(() => this.change(text, trigger));
  }

  /** The loader thread's id (tests and diagnostics); undefined when candidates are loaded in place. */
  loaderThreadId(): number | undefined {
    return this.loader.threadId;
  }

  /** For tests: the loader thread, to end it as a crash would. */
  loaderThreadForTests(): Worker | undefined {
    return this.loader.threadForTests;
  }

  /** Stops the loader thread (the gateway is closing). */
  close(): Promise<void> {
    return this.loader.close();
  }

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** `text` as the config file: relative paths resolve against its directory; restart-only settings are judged against the start's. */
  private candidate(text: string): Candidate {
    const file = this.deps.loaded.source;
    const baseDir = file === EMBEDDED_DEFAULT_SOURCE ? process.cwd() : dirname(resolve(file));
    return { text, file, baseDir, options: this.deps.loadOptions, base: this.deps.loaded };
  }

  /** The text loaded as the config file and judged against the running gateway; nothing applied. */
  private async check(text: string): Promise<{ next: RuntimeConfig; cpuMs: number } | { problems: string[] }> {
    // Off this thread: it serves requests too, and a large configuration takes a while to load.
    const verdict = await this.loader.load(this.candidate(text));
    if ('problems' in verdict) return { problems: verdict.problems.map(formatProblem) };
    const cpu = process.threadCpuUsage();
    const next = await this.deps.runnable(verdict.config);
    const problems = this.deps.tlsProblems(next);
    return problems.length > 0 ? { problems } : { next, cpuMs: cpuMsSince(cpu) };
  }

  private async change(text: string, trigger: ReloadTrigger): Promise<ReloadOutcome> {
    const began = performance.now();
    const checked = await this.check(text);
    if ('problems' in checked) return this.refused(trigger, checked.problems);
    const previous = this.running;
    const next = checked.next;
    const cpu = process.threadCpuUsage();
    // Another text or catalog is a change; the same one may still read other secrets (compared whole).
    if (next.configVersion === previous.configVersion && sameConfiguration(next, { ...previous, loadedAt: next.loadedAt })) {
      this.deps.metrics?.counted('unchanged');
      this.deps.log.info({ ...fields(trigger), configVersion: previous.configVersion }, `${label(trigger)}: the configuration is unchanged`);
      return { applied: true, config: previous, previous, unchanged: true, text };
    }
    const switching = performance.now();
    const checkCpuMs = checked.cpuMs + cpuMsSince(cpu);
    const { problems, cpuMs, workerCpuMs } = await this.deps.switchTo(next);
    if (problems.length > 0) return this.refused(trigger, problems);
    this.running = next;
    this.text = text;
    this.deps.metrics?.counted('applied');
    this.deps.log.info(
      {
        ...fields(trigger),
        configVersion: next.configVersion,
        previousVersion: previous.configVersion,
        models: next.models.size,
        pools: next.pools.size,
        // Loading and checking, then switching every thread (the part requests could notice).
        ms: round(performance.now() - began),
        switchMs: round(performance.now() - switching),
        // What it cost the serving threads (the loading ran on its own thread).
        mainThreadCpuMs: round(checkCpuMs + cpuMs),
        workerCpuMs: round(workerCpuMs),
      },
      `${label(trigger)}: configuration applied to new requests; requests in flight finish on the one they started with`,
    );
    const outcome: Applied = { applied: true, config: next, previous, unchanged: false, text };
    for (const listener of this.listeners) {
      try {
        listener(outcome, trigger);
      } catch (error) {
        this.deps.log.error({ err: error }, 'a configuration listener failed');
      }
    }
    return outcome;
  }

  refuse(trigger: 'apply' | 'rollback', problems: readonly string[]): ReloadOutcome {
    return this.refused(trigger, problems);
  }

  private refused(trigger: ReloadTrigger, problems: readonly string[]): ReloadOutcome {
    this.deps.metrics?.counted('refused');
    this.deps.log.error(
      { ...fields(trigger), configVersion: this.running.configVersion },
      `${label(trigger)}: configuration refused, the running one keeps serving: ${problems.join('; ')}`,
    );
    return { applied: false, problems };
  }
}

/** A signal's log lines name it as the shutdown's do (`signal`), so a supervisor's reload is easy to find. */
function fields(trigger: ReloadTrigger): { trigger: ReloadTrigger; signal?: 'SIGHUP' } {
  return trigger === 'sighup' ? { trigger, signal: 'SIGHUP' } : { trigger };
}

/** This thread's CPU time (user and system) since `from`, in ms: what a reload's step cost the thread, whatever else the machine runs. */
export function cpuMsSince(from: NodeJS.CpuUsage): number {
  const used = process.threadCpuUsage(from);
  return (used.user + used.system) / 1000;
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}

function label(trigger: ReloadTrigger): string {
  return trigger === 'sighup' ? 'SIGHUP' : trigger;
}
