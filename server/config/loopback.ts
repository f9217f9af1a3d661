/** A host only this machine can reach: the admin plane may listen there without a token. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\./.test(host);
}
