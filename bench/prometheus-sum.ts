// Reads counters from the gateway's GET /metrics (Prometheus text): the sum of one metric's
// samples over all label sets, enough for a report line.

export async function scrapeMetrics(url: string): Promise<string> {
  const res = await fetch(`${url}/metrics`);
  if (res.status !== 200) throw new Error(`GET /metrics: HTTP ${res.status}`);
  return res.text();
}

export function sumOf(text: string, metric: string): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(metric) || (line[metric.length] !== '{' && line[metric.length] !== ' ')) continue;
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    if (Number.isFinite(value)) sum += value;
  }
  return sum;
}
