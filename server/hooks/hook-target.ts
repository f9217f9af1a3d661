/**
 * A hook's URL as the admin API and logs show it: user name and password masked, every query
 * value masked (tokens often travel there). A URL read from a secret reference is a credential as
 * a whole (a Slack-style URL whose path is the secret): only its origin is shown.
 */
export function hookTarget(url: string, fromSecret: boolean): string {
  const parsed = new URL(url);
  if (fromSecret) return `${parsed.origin}/***`;
  if (parsed.username !== '' || parsed.password !== '') {
    parsed.username = '***';
    parsed.password = '';
  }
  for (const name of [...new Set(parsed.searchParams.keys())]) parsed.searchParams.set(name, '***');
  // URLSearchParams percent-encodes the mask; people read it better as written.
  return parsed.toString().replaceAll('%2A%2A%2A', '***');
}
