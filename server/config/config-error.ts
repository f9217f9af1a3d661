/** One problem in a configuration file, located as precisely as the file allows. */
export interface ConfigProblem {
  readonly file: string;
  /** Dotted path inside the file, e.g. `models.gpt.provider`; empty for the whole file. */
  readonly path: string;
  readonly message: string;
  readonly line?: number;
  readonly column?: number;
}

/** How a resolver reports a problem at a path of the file (the loader adds file, line and column). */
export type ReportProblem = (path: (string | number)[], message: string) => void;

export function formatProblem(p: ConfigProblem): string {
  const where = p.line !== undefined ? `${p.file}:${p.line}:${p.column ?? 1}` : p.file;
  return p.path === '' ? `${where}: ${p.message}` : `${where}: ${p.path}: ${p.message}`;
}

/** The configuration cannot be used; the gateway refuses to start and prints every problem. */
export class ConfigError extends Error {
  readonly problems: readonly ConfigProblem[];
  constructor(problems: readonly ConfigProblem[]) {
    super(problems.map(formatProblem).join('\n'));
    this.name = 'ConfigError';
    this.problems = problems;
  }
}
