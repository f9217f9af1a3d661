import { Sha256 } from '@aws-crypto/sha256-js';
import { SignatureV4 } from '@smithy/signature-v4';

export interface AwsCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
}

export interface BedrockSigningInput {
  readonly url: URL;
  readonly method: string;
  /** Exactly the headers that will be sent (lower-case names); `host` is taken from `url`. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | Buffer;
  readonly region: string;
  readonly credentials: AwsCredentials;
  /** Fixes the signing time (tests); defaults to now. */
  readonly signingDate?: Date;
}

/** The SigV4 service name Bedrock Runtime signs under (the host says `bedrock-runtime`). */
const SERVICE = 'bedrock';

/**
 * Signs one Bedrock Runtime request with AWS Signature Version 4 and returns the headers to add:
 * `authorization`, `x-amz-date`, `x-amz-content-sha256` and, for temporary credentials,
 * `x-amz-security-token`. The request must then go out with exactly `headers`, `url` and `body`.
 */
export async function signBedrockRequest(input: BedrockSigningInput): Promise<Record<string, string>> {
  const signer = new SignatureV4({
    service: SERVICE,
    region: input.region,
    credentials: { ...input.credentials },
    sha256: Sha256,
    // Non-S3 services sign the path percent-encoded a second time; the model id is already encoded.
    uriEscapePath: true,
  });
  const { url } = input;
  const signed = await signer.sign(
    {
      method: input.method.toUpperCase(),
      protocol: url.protocol,
      hostname: url.hostname,
      ...(url.port !== '' && { port: Number(url.port) }),
      path: url.pathname,
      query: queryOf(url),
      headers: { ...input.headers, host: url.host },
      body: input.body,
    },
    input.signingDate === undefined ? {} : { signingDate: input.signingDate },
  );
  const added: Record<string, string> = {};
  for (const [name, value] of Object.entries(signed.headers)) {
    if (name in input.headers || name === 'host') continue;
    added[name] = value;
  }
  return added;
}

function queryOf(url: URL): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const key of new Set(url.searchParams.keys())) {
    const values = url.searchParams.getAll(key);
    query[key] = values.length === 1 ? (values[0] as string) : values;
  }
  return query;
}

const BEDROCK_HOST = /(?:^|\.)bedrock-runtime(?:-fips)?\.([a-z]{2}(?:-[a-z]+)+-\d+)\.(?:vpce\.)?amazonaws\.com(?:\.cn)?$/;

/** The region in a Bedrock Runtime base URL (`bedrock-runtime.eu-west-1.amazonaws.com`), if it has one. */
export function regionFromBedrockUrl(url: string | URL): string | undefined {
  const host = (typeof url === 'string' ? new URL(url) : url).hostname.toLowerCase();
  return BEDROCK_HOST.exec(host)?.[1];
}

/** AWS credentials from the standard environment variables; undefined unless both key parts are set. */
export function credentialsFromEnv(env: Readonly<Record<string, string | undefined>> = process.env): AwsCredentials | undefined {
  const accessKeyId = env.AWS_ACCESS_KEY_ID;
  const secretAccessKey = env.AWS_SECRET_ACCESS_KEY;
  if (!accessKeyId || !secretAccessKey) return undefined;
  const sessionToken = env.AWS_SESSION_TOKEN;
  return { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) };
}
