/**
 * The configuration `gateway` runs when no config file is given and ./config.yaml does not exist:
 * the built-in demo upstream behind three model names, no API keys needed.
 */
export const EMBEDDED_DEFAULT_CONFIG = `# Embedded default: the built-in demo upstream (an echo server, not a model).
listen: 0.0.0.0:8080
admin_listen: 127.0.0.1:8081
models:
  demo:        { provider: demo, model: demo-echo }             # OpenAI protocol upstream
  demo-claude: { provider: demo-anthropic, model: demo-echo }   # Anthropic protocol upstream
  demo-embed:  { provider: demo, model: demo-embedding, operations: [embeddings] }   # deterministic vectors
pools:
  demo-pool: { members: [ { model: demo, weight: 1 }, { model: demo-claude, weight: 1 } ] }
governance: off
`;

export const EMBEDDED_DEFAULT_SOURCE = '(embedded default)';
