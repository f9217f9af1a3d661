// The YAML the admin API shows: secrets masked, everything else byte for byte as written.
import { describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import { maskConfigText } from '../../server/config/masked-config.ts';

const TEXT = `# production gateway
admin_token: { env: ADMIN_TOKEN }     # a reference stays as written
governance_secret: plain-governance-secret-value
providers:
  openai:
    api_key: { file: ./openai.key }
    headers: { OpenAI-Organization: org-visible, x-api-key: sk-plain-header-secret, Authorization: "Bearer tok-in-header" }
hooks:
  - name: audit
    kind: webhook
    url: https://alice:hunter2pw@audit.example.com/ingest?token=query-secret-value&x=1
    headers:
      x-audit-token: audit-header-secret
      content-type: application/json
tls:
  cert: ./cert.pem
  key: |
    -----BEGIN PRIVATE KEY-----
    MIIEvQIBADANBgkqhkiG9w0BAQEFAASC
    -----END PRIVATE KEY-----
auth:
  oidc: { issuer: https://idp.example.com, client_id: gateway, client_secret: oidc-client-secret-plain }
models:
  gpt: { provider: openai, model: gpt-4.1-mini }   # resolved-secret-in-comment
`;

describe('maskConfigText', () => {
  const masked = maskConfigText(TEXT, ['resolved-secret-in-comment', 'short']);

  it('masks every plain secret, credentials in URLs and a resolved secret found anywhere', () => {
    for (const secret of [
      'plain-governance-secret-value',
      'sk-plain-header-secret',
      'tok-in-header',
      'hunter2pw',
      'alice',
      'query-secret-value',
      'audit-header-secret',
      'MIIEvQIBADANBgkqhkiG9w0BAQEFAASC',
      'oidc-client-secret-plain',
      'resolved-secret-in-comment',
    ]) {
      expect(masked).not.toContain(secret);
    }
    expect(masked).toContain("governance_secret: '***'");
    expect(masked).toContain('url: "https://***@audit.example.com/ingest?token=***&x=***"');
  });

  it('keeps references, plain settings and comments as written, and stays valid YAML', () => {
    expect(masked).toContain('admin_token: { env: ADMIN_TOKEN }     # a reference stays as written');
    expect(masked).toContain('api_key: { file: ./openai.key }');
    expect(masked).toContain('OpenAI-Organization: org-visible');
    expect(masked).toContain('content-type: application/json');
    expect(masked).toContain('cert: ./cert.pem');
    expect(masked.startsWith('# production gateway\n')).toBe(true);
    const doc = parseDocument(masked);
    expect(doc.errors).toEqual([]);
    expect(doc.toJS()).toMatchObject({ tls: { key: '***' }, models: { gpt: { provider: 'openai' } }, hooks: [{ headers: { 'x-audit-token': '***' } }] });
  });

  it('leaves a text without secrets byte-identical', () => {
    const plain = 'listen: 127.0.0.1:0\nmodels:\n  a: { provider: openai, model: m }  # note\n';
    expect(maskConfigText(plain, [])).toBe(plain);
  });
});
