// The hosted pages as HTML: every value escaped, snippets that use the real base URL and key, a
// budget shown in dollars, and the page headers.
import { describe, expect, it } from 'vitest';
import { html, escapeHtml } from '../../server/auth/html.ts';
import type { IssuedKey } from '../../server/auth/key-issuer.ts';
import { pageHeaders } from '../../server/auth/page-headers.ts';
import { errorPage, keyPage, landingPage } from '../../server/auth/pages.ts';
import { snippets } from '../../server/auth/snippets.ts';

const ISSUED: IssuedKey = {
  secret: 'gwk_' + 'A'.repeat(43),
  keyId: 'key_01ABC',
  prefix: 'gwk_AAAA',
  team: 'ml',
  generation: 0,
  created: true,
  budgetCents: 123456,
  spentCents: 2000,
  remainingCents: 121456,
  rpm: 60,
};

describe('html', () => {
  it('escapes interpolated text, keeps nested html, drops null/undefined/false', () => {
    const inner = html`<b>${'<i>'}</b>`;
    expect(html`<p title="${'"x"'}">${inner}${null}${undefined}${false}${['a', '&']}</p>`.text).toBe('<p title="&quot;x&quot;"><b>&lt;i&gt;</b>a&amp;</p>');
    expect(escapeHtml(`<>&"'`)).toBe('&lt;&gt;&amp;&quot;&#39;');
  });
});

describe('keyPage', () => {
  it('escapes every value a person or an issuer controls', () => {
    const hostile = '<script>alert(1)</script>';
    const page = keyPage({
      nonce: 'n0nce',
      issued: { ...ISSUED, team: hostile },
      who: `"><img src=x onerror=alert(1)>`,
      baseUrl: 'https://llm.example.com',
      model: 'gpt',
    });
    expect(page).not.toContain(hostile);
    expect(page).not.toContain('<img');
    expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(page.match(/<script/g)).toHaveLength(1); // the page's own, nonce'd
    expect(page).toContain('<script nonce="n0nce">');
  });

  it('shows the key once on the page, the budget in dollars, the rate limit, and says when the key is the same as before', () => {
    const page = keyPage({ nonce: 'n', issued: ISSUED, who: 'alice', baseUrl: 'https://llm.example.com', model: 'gpt' });
    expect(page).toContain(`<code id="key" data-testid="key">${ISSUED.secret}</code>`);
    expect(page).toContain('$1,214.56 of $1,234.56');
    expect(page).toContain('60 requests per minute');
    expect(page).not.toContain('same key as before');
    const again = keyPage({
      nonce: 'n',
      issued: { ...ISSUED, created: false, budgetCents: null, remainingCents: null, rpm: null },
      who: 'alice',
      baseUrl: 'https://llm.example.com',
      model: 'gpt',
    });
    expect(again).toContain('same key as before');
    expect(again).toContain('no budget limit');
    expect(again).toMatch(/Rate limit<\/dt><dd>none/);
  });

  it('landing and error pages carry no script, and the error page offers a new sign-in only when asked', () => {
    expect(landingPage({ nonce: 'n', issuerName: 'login.example.com' })).not.toContain('<script');
    expect(errorPage({ nonce: 'n', title: 'T', message: '<b>', retry: true })).toContain('href="?sign_in=1"');
    expect(errorPage({ nonce: 'n', title: 'T', message: '<b>', retry: false })).not.toContain('sign_in');
    expect(errorPage({ nonce: 'n', title: 'T', message: '<b>', retry: false })).toContain('&lt;b&gt;');
  });
});

describe('snippets', () => {
  it('use the base URL (with /v1 for OpenAI), the key and a model of the gateway', () => {
    const blocks = Object.fromEntries(snippets('https://llm.example.com', 'gwk_k', 'claude').map((s) => [s.id, s.text]));
    expect(blocks.env).toBe(
      'export OPENAI_BASE_URL="https://llm.example.com/v1"\nexport OPENAI_API_KEY="gwk_k"\nexport ANTHROPIC_BASE_URL="https://llm.example.com"\nexport ANTHROPIC_API_KEY="gwk_k"',
    );
    expect(blocks['openai-python']).toContain('base_url="https://llm.example.com/v1"');
    expect(blocks['anthropic-python']).toContain('base_url="https://llm.example.com"');
    expect(blocks.curl).toContain('curl "https://llm.example.com/v1/chat/completions"');
    expect(blocks.curl).toContain(`-d '{"model":"claude","messages":[{"role":"user","content":"Hello"}]}'`);
  });
});

describe('pageHeaders', () => {
  it("no caching, no framing, no referrer; a CSP that allows only the nonce'd style and script", () => {
    const headers = pageHeaders('abc');
    expect(headers['cache-control']).toBe('no-store');
    expect(headers['referrer-policy']).toBe('no-referrer');
    expect(headers['content-security-policy']).toBe(
      "default-src 'none'; script-src 'nonce-abc'; style-src 'nonce-abc'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    );
  });
});
