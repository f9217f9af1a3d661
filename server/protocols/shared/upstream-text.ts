/** A short, safe description of an upstream error body that is not in the expected shape. */
export function upstreamText(status: number, bodyText: string): string {
  const trimmed = bodyText.trim().slice(0, 200);
  return trimmed === '' ? `upstream answered ${status}` : `upstream answered ${status}: ${trimmed}`;
}
