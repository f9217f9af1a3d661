/** A plain fixed-width table: the first column and `textColumns` left-aligned, the others (numbers) right-aligned. */
export function textTable(headers: readonly string[], rows: readonly (readonly string[])[], textColumns: readonly number[] = []): string {
  const widths = headers.map((h, c) => Math.max(h.length, ...rows.map((r) => (r[c] ?? '').length)));
  const left = (c: number) => c === 0 || textColumns.includes(c);
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, c) => (left(c) ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!)))
      .join('  ')
      .trimEnd();
  return [line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

/** A number for a table cell; '-' when there is none. */
export function cell(x: number | null | undefined, digits = 0, suffix = ''): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return '-';
  return x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) + suffix;
}

/** A signed difference for a cell: +0.123. */
export function signed(x: number | null | undefined, digits: number): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return '-';
  return (x >= 0 ? '+' : '') + x.toFixed(digits);
}
