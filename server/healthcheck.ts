/**
 * `gateway --healthcheck <url>`: a probe for images without curl or a shell (the container's
 * HEALTHCHECK). Exit 0 when the URL answers 2xx within the time limit, 1 otherwise, with the
 * reason on stderr (container engines keep it in the health log).
 */
export async function probeHealth(url: string, timeoutMs = 3000): Promise<number> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), redirect: 'manual' });
    await response.arrayBuffer();
    if (response.ok) return 0;
    console.error(`gateway: health check ${url}: HTTP ${response.status}`);
  } catch (error) {
    console.error(`gateway: health check ${url}: ${reason(error)}`);
  }
  return 1;
}

function reason(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  if (cause?.code !== undefined) return cause.code; // ECONNREFUSED and the like, the useful part
  return error instanceof Error ? error.message : String(error);
}
