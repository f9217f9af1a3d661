import { isMap, isScalar, isSeq, parseDocument, type Node } from 'yaml';
import { hookTarget } from '../hooks/hook-target.ts';
import type { RuntimeConfig } from './runtime-config.ts';

/** What replaces a secret in a configuration shown by the admin API (quoted: a bare `*` is a YAML alias). */
export const MASKED = "'***'";

/** Header names that say their value is a credential (as credential-mask.ts judges operator headers). */
const CREDENTIAL_HEADER = /auth|key|token|secret|signature|password|cookie|credential/i;
/** Keys whose plain string value would be a secret (the schema wants { env } or { file } there). */
const SECRET_KEY = /secret|token|password|api_?key|credential/i;
const PRIVATE_KEY_PEM = /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----/;
/** Resolved secrets shorter than this are not searched for in the text (they would mask common words). */
const MIN_SECRET_LENGTH = 6;

interface Edit {
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

/**
 * A configuration's YAML as the admin API shows it: the operator's text, byte for byte, except
 * where a secret could be. `{ env }` and `{ file }` references stay as written (they are not
 * secrets); a plain value where a secret belongs, a credential-named header's plain value, a
 * private key's PEM and the user, password and query values of a URL are masked; and any text
 * equal to a secret the configuration resolved (`secrets`, e.g. from `secretsOf`) is masked
 * wherever it appears, comments included.
 */
export function maskConfigText(text: string, secrets: Iterable<string> = []): string {
  const doc = parseDocument(text, { uniqueKeys: false, resolveKnownTags: false });
  const edits: Edit[] = [];
  visit(doc.contents, [], text, edits);
  let out = text;
  // Back to front, so earlier offsets stay valid.
  for (const edit of edits.sort((a, b) => b.start - a.start)) out = out.slice(0, edit.start) + edit.text + out.slice(edit.end);
  const known = [...new Set(secrets)].filter((s) => s.length >= MIN_SECRET_LENGTH).sort((a, b) => b.length - a.length);
  for (const secret of known) out = out.split(secret).join('***');
  return out;
}

function visit(node: unknown, path: readonly string[], text: string, edits: Edit[]): void {
  if (isMap(node)) {
    for (const pair of node.items) {
      const key = isScalar(pair.key) ? String(pair.key.value) : '';
      visit(pair.value, [...path, key], text, edits);
    }
  } else if (isSeq(node)) {
    node.items.forEach((item, i) => visit(item, [...path, String(i)], text, edits));
  } else if (isScalar(node) && typeof node.value === 'string') {
    const replacement = maskedValue(node.value, path);
    const range = (node as Node).range;
    if (replacement !== undefined && range !== undefined && range !== null) {
      // A block scalar's range takes in its last line break; the break stays.
      const end = text.slice(range[0], range[1]).endsWith('\n') ? range[1] - 1 : range[1];
      edits.push({ start: range[0], end, text: replacement });
    }
  }
}

/** The text to put in place of a string value at `path`, or undefined to leave it. */
function maskedValue(value: string, path: readonly string[]): string | undefined {
  const key = path.at(-1) ?? '';
  const parent = path.at(-2);
  if (parent === 'headers' && CREDENTIAL_HEADER.test(key)) return MASKED;
  if (SECRET_KEY.test(key) || PRIVATE_KEY_PEM.test(value)) return MASKED;
  if (/^https?:\/\//i.test(value)) {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      return undefined;
    }
    if (url.username === '' && url.password === '' && url.search === '') return undefined;
    return JSON.stringify(hookTarget(value, false));
  }
  return undefined;
}

/** Every secret a loaded configuration holds, read from its references (to find them in any text). */
export function secretsOf(config: RuntimeConfig): string[] {
  const credentialHeaders = (headers: Readonly<Record<string, string>>) =>
    Object.entries(headers)
      .filter(([name]) => CREDENTIAL_HEADER.test(name))
      .map(([, value]) => value);
  const out: (string | undefined)[] = [config.adminToken, config.governanceSecret, config.tls?.key, config.adminTls?.key, config.auth?.oidc.clientSecret];
  for (const provider of config.providers.values()) {
    out.push(provider.apiKey, provider.aws?.credentials.accessKeyId, provider.aws?.credentials.secretAccessKey, provider.aws?.credentials.sessionToken);
    out.push(...credentialHeaders(provider.headers));
  }
  for (const hook of config.hooks) {
    out.push(...credentialHeaders(hook.headers));
    if (hook.url !== hook.target) out.push(hook.url);
  }
  out.push(...credentialHeaders(config.otlp?.headers ?? {}));
  return out.filter((s): s is string => s !== undefined && s !== '');
}
