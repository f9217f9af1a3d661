// Scrapes a gateway's /metrics, checks it with the real promtool, and reads samples from it. The
// format is promtool's to judge; reading a sample line back needs only the line's grammar.
import { spawnSync } from 'node:child_process';

export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface Scrape {
  readonly text: string;
  readonly contentType: string | null;
  readonly samples: readonly Sample[];
}

export async function scrape(dataUrl: string): Promise<Scrape> {
  const res = await fetch(`${dataUrl}/metrics`);
  if (res.status !== 200) throw new Error(`GET /metrics answered ${res.status}`);
  const text = await res.text();
  return { text, contentType: res.headers.get('content-type'), samples: parseSamples(text) };
}

/** `promtool check metrics` on the exposition: its exit status and what it said. */
export function promtoolCheck(text: string): { status: number | null; output: string } {
  const result = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
  if (result.error !== undefined) throw new Error(`promtool could not run (make system-packages installs it): ${result.error.message}`);
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

const SAMPLE_LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?/g;

/** Sample lines of the text exposition (comments skipped; label values unescaped). */
export function parseSamples(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = SAMPLE_LINE.exec(line);
    if (match === null) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, raw] of (match[2] ?? '').matchAll(LABEL)) labels[key!] = raw!.replace(/\\(.)/g, (_m, c: string) => (c === 'n' ? '\n' : c));
    samples.push({ name: match[1]!, labels, value: Number(match[3]) });
  }
  return samples;
}

/** The sample named `name` with exactly these labels, or undefined. */
export function sample(scraped: Pick<Scrape, 'samples'>, name: string, labels: Record<string, string> = {}): Sample | undefined {
  const wanted = Object.entries(labels);
  return scraped.samples.find((s) => s.name === name && Object.keys(s.labels).length === wanted.length && wanted.every(([k, v]) => s.labels[k] === v));
}

/** A sample's value, 0 when the series does not exist yet. */
export function value(scraped: Pick<Scrape, 'samples'>, name: string, labels: Record<string, string> = {}): number {
  return sample(scraped, name, labels)?.value ?? 0;
}

/** Metric family names present (from the TYPE lines). */
export function families(scraped: Pick<Scrape, 'text'>): string[] {
  return [...scraped.text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]!);
}
