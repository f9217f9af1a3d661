import { html, SafeHtml } from './html.ts';
import type { IssuedKey } from './key-issuer.ts';
import { snippets } from './snippets.ts';

/**
 * The hosted pages of GET /auth/token: server-rendered, one file each time, no external asset
 * (no CDN, font or image): inline CSS and one small inline script, both allowed by the response's
 * CSP nonce only. Every value is escaped by the `html` tag.
 */

const STYLE = `
:root { color-scheme: light dark; --fg: #1b1f24; --muted: #57606a; --bg: #ffffff; --panel: #f4f6f8; --line: #d0d7de; --accent: #0a58ca; --accent-fg: #ffffff; --warn: #7a4d00; --warn-bg: #fff4d6; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --muted: #9da7b3; --bg: #0d1117; --panel: #161b22; --line: #30363d; --accent: #4d94ff; --accent-fg: #0d1117; --warn: #f2cc60; --warn-bg: #2d2410; } }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
main { max-width: 52rem; margin: 0 auto; padding: 2rem 1.25rem 3rem; }
h1 { font-size: 1.6rem; margin: 0 0 .75rem; }
h2 { font-size: 1.15rem; margin: 2rem 0 .5rem; }
h3 { font-size: 1rem; margin: 1.25rem 0 .35rem; }
p { margin: .5rem 0; }
.muted { color: var(--muted); }
a { color: var(--accent); }
.button, button { display: inline-block; font: inherit; font-weight: 600; padding: .55rem 1.1rem; border-radius: .4rem; border: 1px solid var(--accent); background: var(--accent); color: var(--accent-fg); text-decoration: none; cursor: pointer; }
button.secondary { background: transparent; color: var(--accent); padding: .3rem .75rem; font-size: .9rem; }
.button:focus-visible, button:focus-visible, a:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
.key { display: flex; flex-wrap: wrap; gap: .75rem; align-items: center; padding: 1rem; background: var(--panel); border: 1px solid var(--line); border-radius: .5rem; }
.key code { font: 1rem/1.4 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; word-break: break-all; user-select: all; flex: 1 1 22rem; }
.notice { padding: .75rem 1rem; border-radius: .5rem; background: var(--warn-bg); color: var(--warn); margin: 1rem 0; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: .25rem 1.25rem; margin: 1rem 0; }
dt { color: var(--muted); }
dd { margin: 0; }
.snippet { margin-top: 1.25rem; }
.snippet-head { display: flex; justify-content: space-between; align-items: center; gap: 1rem; }
.snippet-head h3 { margin: 0; }
pre { margin: .35rem 0 0; padding: .85rem 1rem; overflow-x: auto; background: var(--panel); border: 1px solid var(--line); border-radius: .5rem; }
pre code { font: .875rem/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
`;

/** Copies the element a button names; without the Clipboard API (plain http), selects it instead. */
const SCRIPT = `
for (const button of document.querySelectorAll('button[data-copy]')) {
  button.addEventListener('click', async () => {
    const target = document.getElementById(button.dataset.copy);
    const status = document.getElementById('copy-status');
    try {
      await navigator.clipboard.writeText(target.textContent);
      status.textContent = button.dataset.what + ' copied to the clipboard.';
    } catch {
      const range = document.createRange();
      range.selectNodeContents(target);
      const selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      status.textContent = button.dataset.what + ' selected: press Ctrl+C (or Command+C) to copy.';
    }
  });
}
`;

/** STYLE and SCRIPT are constants of this file, inserted as they are. */
function layout(nonce: string, title: string, body: SafeHtml, script = false): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>${title}</title>
<style nonce="${nonce}">${new SafeHtml(STYLE)}</style>
</head>
<body>
<main>
${body}
</main>
${script && html`<script nonce="${nonce}">${new SafeHtml(SCRIPT)}</script>`}
</body>
</html>
`.text;
}

export function landingPage(options: { nonce: string; issuerName: string }): string {
  return layout(
    options.nonce,
    'Get your gateway key',
    html`
<h1>Get your gateway key</h1>
<p>Sign in with your organisation account (${options.issuerName}) to get your own key for this gateway.
It works with the OpenAI and Anthropic SDKs and anything else that takes an API key and a base URL.</p>
<p>Your key's budget and rate limit come from your team.</p>
<p><a class="button" href="?sign_in=1">Sign in</a></p>
<p class="muted">Signing in again later shows the same key.</p>`,
  );
}

export interface KeyPageOptions {
  readonly nonce: string;
  readonly issued: IssuedKey;
  /** Who signed in, as the issuer names them. */
  readonly who: string;
  /** The data plane's root, e.g. https://llm.example.com */
  readonly baseUrl: string;
  /** A model name of this gateway, for the snippets. */
  readonly model: string;
}

export function keyPage(options: KeyPageOptions): string {
  const { issued } = options;
  const blocks = snippets(options.baseUrl, issued.secret, options.model);
  return layout(
    options.nonce,
    'Your gateway key',
    html`
<h1>Your gateway key</h1>
<p>Signed in as <strong>${options.who}</strong>, team <strong>${issued.team}</strong>.</p>
${!issued.created && html`<p>This is the same key as before: your key is tied to your identity, so every sign-in shows it.</p>`}
<section aria-labelledby="key-heading">
<h2 id="key-heading" class="visually-hidden">Key</h2>
<div class="key">
<code id="key" data-testid="key">${issued.secret}</code>
<button type="button" data-copy="key" data-what="Key">Copy key</button>
</div>
<p class="notice" role="note">Copy it now: this page is not stored anywhere and cannot be reloaded. Treat the key like a password.</p>
<p id="copy-status" class="muted" role="status" aria-live="polite"></p>
</section>
<dl>
<dt>Team</dt><dd data-testid="team">${issued.team}</dd>
<dt>Budget left</dt><dd data-testid="remaining">${issued.remainingCents === null ? 'no budget limit' : `${dollars(issued.remainingCents)} of ${dollars(issued.budgetCents ?? 0)}`}</dd>
<dt>Rate limit</dt><dd>${issued.rpm === null ? 'none' : `${issued.rpm} requests per minute`}</dd>
<dt>Key id</dt><dd><code>${issued.keyId}</code></dd>
</dl>
<h2>Use it</h2>
<p>Base URL <code>${options.baseUrl}</code> (OpenAI SDKs: <code>${options.baseUrl}/v1</code>), model names as your administrator configured them (e.g. <code>${options.model}</code>).</p>
${blocks.map(
  (block) => html`
<div class="snippet">
<div class="snippet-head"><h3 id="${block.id}-heading">${block.title}</h3>
<button type="button" class="secondary" data-copy="snippet-${block.id}" data-what="${block.title}" aria-label="Copy ${block.title}">Copy</button></div>
<pre><code id="snippet-${block.id}">${block.text}</code></pre>
</div>`,
)}
<h2>Lost or leaked?</h2>
<p>Lost it: sign in here again. Leaked: ask an administrator to revoke key <code>${issued.keyId}</code>; your next sign-in then gets a new key, with a fresh budget.</p>`,
    true,
  );
}

export function errorPage(options: { nonce: string; title: string; message: string; retry: boolean }): string {
  return layout(
    options.nonce,
    options.title,
    html`
<h1>${options.title}</h1>
<p role="alert">${options.message}</p>
${options.retry && html`<p><a class="button" href="?sign_in=1">Sign in again</a></p>`}`,
  );
}

const USD = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });

function dollars(cents: number): string {
  return USD.format(cents / 100);
}
