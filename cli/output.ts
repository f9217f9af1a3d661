// Output formatting: aligned tables and "label  value" blocks for people, JSON for programs.
// Everything goes to stdout; errors go to stderr (see errors.ts).

/** The admin API's answer as is, pretty-printed, for --json. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

export function print(text: string): void {
  process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
}

/** Columns padded to their widest cell; the header in capitals. */
export function table(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(headers.map((h) => h.toUpperCase())), ...rows.map(line)].join('\n');
}

/** "label  value" lines with the values aligned. */
export function fields(pairs: readonly (readonly [string, string])[]): string {
  const width = Math.max(...pairs.map(([label]) => label.length));
  return pairs.map(([label, value]) => `${`${label}:`.padEnd(width + 2)}${value}`).join('\n');
}

/** Integer cents as dollars, exactly: 1234 -> $12.34; null -> "none". */
export function cents(value: number | null): string {
  if (value === null) return 'none';
  return `$${Math.trunc(value / 100)}.${String(value % 100).padStart(2, '0')}`;
}

/** 3725.4 -> "1h 2m 5s" */
export function duration(seconds: number): string {
  const s = Math.floor(seconds);
  const parts = [
    [Math.floor(s / 86_400), 'd'],
    [Math.floor(s / 3600) % 24, 'h'],
    [Math.floor(s / 60) % 60, 'm'],
  ] as const;
  const lead = parts.findIndex(([n]) => n > 0);
  return [...(lead === -1 ? [] : parts.slice(lead).map(([n, unit]) => `${n}${unit}`)), `${s % 60}s`].join(' ');
}

export const orNone = (value: string | number | null): string => (value === null ? 'none' : String(value));

/** An exact USD string from the admin API ("0.00001700") as dollars without needless zeros: $0.000017; at least cents: $2.50. */
export function dollars(usd: string | null): string {
  if (usd === null) return 'none';
  const [whole, fraction = ''] = usd.split('.');
  return `$${whole}.${fraction.replace(/0+$/, '').padEnd(2, '0')}`;
}
