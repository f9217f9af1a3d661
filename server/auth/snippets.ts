/** One ready-to-paste block on the key page. */
export interface Snippet {
  readonly id: string;
  readonly title: string;
  readonly text: string;
}

/**
 * The key with the gateway's real base URL, for the OpenAI and Anthropic SDKs and curl. `baseUrl`
 * is the data plane's root (no trailing slash): the OpenAI SDKs take it with /v1, Anthropic's as
 * it is. Values are written as JSON strings, which shell double quotes and Python both read as is
 * (a key is base64url, a model name and a checked base URL have no quote, backslash or $).
 */
export function snippets(baseUrl: string, key: string, model: string): Snippet[] {
  const q = (value: string) => JSON.stringify(value);
  const openaiBase = `${baseUrl}/v1`;
  const body = JSON.stringify({ model, messages: [{ role: 'user', content: 'Hello' }] });
  return [
    {
      id: 'env',
      title: 'Environment (the OpenAI and Anthropic SDKs read these)',
      text: [
        `export OPENAI_BASE_URL=${q(openaiBase)}`,
        `export OPENAI_API_KEY=${q(key)}`,
        `export ANTHROPIC_BASE_URL=${q(baseUrl)}`,
        `export ANTHROPIC_API_KEY=${q(key)}`,
      ].join('\n'),
    },
    {
      id: 'openai-python',
      title: 'OpenAI SDK (Python)',
      text: [
        'from openai import OpenAI',
        '',
        'client = OpenAI(',
        `    base_url=${q(openaiBase)},`,
        `    api_key=${q(key)},`,
        ')',
        'reply = client.chat.completions.create(',
        `    model=${q(model)},`,
        '    messages=[{"role": "user", "content": "Hello"}],',
        ')',
        'print(reply.choices[0].message.content)',
      ].join('\n'),
    },
    {
      id: 'anthropic-python',
      title: 'Anthropic SDK (Python)',
      text: [
        'from anthropic import Anthropic',
        '',
        'client = Anthropic(',
        `    base_url=${q(baseUrl)},`,
        `    api_key=${q(key)},`,
        ')',
        'reply = client.messages.create(',
        `    model=${q(model)},`,
        '    max_tokens=256,',
        '    messages=[{"role": "user", "content": "Hello"}],',
        ')',
        'print(reply.content[0].text)',
      ].join('\n'),
    },
    {
      id: 'curl',
      title: 'curl',
      text: [
        `curl ${q(`${openaiBase}/chat/completions`)} \\`,
        `  -H ${q(`Authorization: Bearer ${key}`)} \\`,
        `  -H "Content-Type: application/json" \\`,
        `  -d '${body}'`,
      ].join('\n'),
    },
  ];
}
