import type { GatewayConfig, Hook } from '../../generated/config-types.ts';
import { hookTarget } from '../hooks/hook-target.ts';
import { HOOK_DEFAULTS, WEBHOOK_EVENTS, type HookSettings } from '../hooks/hook-settings.ts';
import type { ReportProblem } from './config-error.ts';
import { readSecret, type SecretRef } from './secret-ref.ts';

/** Keys only one kind of hook has; the schema allows them on both, so the loader says which. */
const WEBHOOK_ONLY = ['events', 'queue_size', 'concurrency', 'max_retries', 'backoff'] as const;
/** Headers the HTTP client sets itself from the body and the URL. */
const RESERVED_HEADERS = new Set(['content-length', 'host', 'transfer-encoding', 'connection']);

/** `hooks:` resolved: secrets read, defaults applied, each kind's own keys checked. */
export function resolveHooks(config: GatewayConfig, baseDir: string, env: NodeJS.ProcessEnv, problem: ReportProblem): HookSettings[] {
  const out: HookSettings[] = [];
  const names = new Set<string>();
  (config.hooks ?? []).forEach((hook, i) => {
    const at = (...path: (string | number)[]) => ['hooks', i, ...path];
    if (names.has(hook.name)) problem(at('name'), `another hook is named "${hook.name}" already; hook names are unique`);
    names.add(hook.name);
    const url = resolveUrl(hook, baseDir, env, (message) => problem(at('url'), message));
    const headers = resolveHeaders(hook, baseDir, env, (name, message) => problem(at('headers', name), message));
    if (url?.basicAuth !== undefined && headers !== undefined) {
      if (headers.authorization !== undefined) problem(at('url'), 'the URL has a user name or password and headers has an authorization: keep one of them');
      else headers.authorization = url.basicAuth;
    }
    if (hook.kind === 'gate') {
      for (const key of WEBHOOK_ONLY) if (hook[key] !== undefined) problem(at(key), `only a webhook hook has ${key}; "${hook.name}" is a gate`);
      if (hook.on_error === undefined)
        problem(
          at(),
          `gate hook "${hook.name}" needs on_error: allow (fail open: requests go on when the gate cannot answer) or deny (fail closed: they get 403)`,
        );
      if (url === undefined || headers === undefined || hook.on_error === undefined) return;
      out.push({
        kind: 'gate',
        name: hook.name,
        url: url.url,
        target: url.target,
        headers,
        timeoutMs: hook.timeout_ms ?? HOOK_DEFAULTS.gateTimeoutMs,
        onError: hook.on_error,
        includeContent: hook.include_content ?? false,
      });
      return;
    }
    if (hook.on_error !== undefined)
      problem(at('on_error'), `only a gate hook has on_error; "${hook.name}" is a webhook, whose failed deliveries are retried and counted`);
    if (hook.include_content === true)
      problem(at('include_content'), 'webhook events carry metadata only (never prompt or completion text); include_content is for gate hooks');
    const backoff = { initialMs: hook.backoff?.initial_ms ?? HOOK_DEFAULTS.backoff.initialMs, maxMs: hook.backoff?.max_ms ?? HOOK_DEFAULTS.backoff.maxMs };
    if (backoff.initialMs > backoff.maxMs) problem(at('backoff'), `initial_ms (${backoff.initialMs}) is more than max_ms (${backoff.maxMs})`);
    if (url === undefined || headers === undefined) return;
    out.push({
      kind: 'webhook',
      name: hook.name,
      url: url.url,
      target: url.target,
      headers,
      timeoutMs: hook.timeout_ms ?? HOOK_DEFAULTS.webhookTimeoutMs,
      events: hook.events ?? [...WEBHOOK_EVENTS],
      queueSize: hook.queue_size ?? HOOK_DEFAULTS.queueSize,
      concurrency: hook.concurrency ?? HOOK_DEFAULTS.concurrency,
      maxRetries: hook.max_retries ?? HOOK_DEFAULTS.maxRetries,
      backoff,
    });
  });
  return out;
}

/**
 * The URL to call and the one to show. A user name and password in it become an Authorization:
 * Basic header (the HTTP client would otherwise drop them without a word).
 */
function resolveUrl(
  hook: Hook,
  baseDir: string,
  env: NodeJS.ProcessEnv,
  problem: (message: string) => void,
): { url: string; target: string; basicAuth?: string } | undefined {
  const fromSecret = typeof hook.url !== 'string';
  let text: string;
  if (typeof hook.url === 'string') {
    text = hook.url;
  } else {
    const secret = readSecret(hook.url as SecretRef, baseDir, env);
    if ('error' in secret) return void problem(secret.error);
    text = secret.value.trim();
  }
  let parsed: URL;
  try {
    parsed = new URL(text);
  } catch {
    // A secret URL is never repeated in the message.
    return void problem(fromSecret ? 'the URL read from this secret is not a valid URL' : `${JSON.stringify(text)} is not a valid URL`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return void problem(`a hook URL must be http:// or https:// (got ${parsed.protocol})`);
  const target = hookTarget(parsed.toString(), fromSecret);
  if (parsed.username === '' && parsed.password === '') return { url: parsed.toString(), target };
  const credentials = `${decodeURIComponent(parsed.username)}:${decodeURIComponent(parsed.password)}`;
  parsed.username = '';
  parsed.password = '';
  return { url: parsed.toString(), target, basicAuth: `Basic ${Buffer.from(credentials).toString('base64')}` };
}

function resolveHeaders(
  hook: Hook,
  baseDir: string,
  env: NodeJS.ProcessEnv,
  problem: (name: string, message: string) => void,
): Record<string, string> | undefined {
  const out: Record<string, string> = {};
  let ok = true;
  for (const [name, value] of Object.entries(hook.headers ?? {})) {
    if (value === undefined) continue;
    if (RESERVED_HEADERS.has(name.toLowerCase())) {
      problem(name, `${name} is set by the gateway for each call`);
      ok = false;
      continue;
    }
    if (typeof value === 'string') {
      if (/[\x00-\x1f\x7f]/.test(value)) {
        problem(name, 'a header value cannot hold a line break or control character');
        ok = false;
      } else {
        out[name.toLowerCase()] = value;
      }
      continue;
    }
    const secret = readSecret(value as SecretRef, baseDir, env);
    if ('error' in secret) {
      problem(name, secret.error);
      ok = false;
    } else {
      out[name.toLowerCase()] = secret.value;
    }
  }
  return ok ? out : undefined;
}
