/**
 * Resolves once no request is being handled (true), or after `maxMs` (false). After a drain cut
 * their connections, requests still settle their spend and send their records: governance and
 * the observers are closed only then.
 */
export async function inFlightSettled(inFlight: { readonly current: number }, maxMs: number): Promise<boolean> {
  const until = Date.now() + maxMs;
  while (inFlight.current > 0) {
    if (Date.now() >= until) return false;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return true;
}
