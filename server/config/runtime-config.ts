import type { MediaFetchSettings } from '../media/media-fetch-settings.ts';
import type { ErrorDisposition } from '../../generated/catalog-types.ts';
import type { HookSettings } from '../hooks/hook-settings.ts';
import type { ProtocolId } from '../ir/index.ts';
import type { BreakerSettings } from '../routing/breaker-settings.ts';
import type { AwsCredentials } from '../upstream/sigv4.ts';
import type { TeamBudget } from '../governance/team-budget.ts';

/** USD per million tokens (catalog, or the model's override in config.yaml). */
export interface Price {
  readonly input: number;
  readonly output: number;
  readonly cache_read?: number;
  readonly cache_write?: number;
}

export type AuthStyle = 'bearer' | 'x-api-key' | 'api-key' | 'x-goog-api-key' | 'sigv4' | 'none';

/** A catalog provider with the operator's credentials, ready to send requests to. */
export interface ProviderRuntime {
  readonly name: string;
  readonly protocol: ProtocolId;
  /** What the protocol's official SDK takes as base URL, without a trailing slash. */
  readonly baseUrl: string;
  readonly auth: AuthStyle;
  readonly apiKey: string | undefined;
  /** SigV4 signing for `auth: sigv4` without an api_key (a Bedrock API key goes as Bearer instead). */
  readonly aws: { readonly region: string; readonly credentials: AwsCredentials } | undefined;
  readonly headers: Readonly<Record<string, string>>;
  readonly query: Readonly<Record<string, string>>;
  readonly errorMap: Readonly<Record<string, ErrorDisposition>>;
}

/** An operator model name routed to one lane: one upstream model on one provider. */
export interface LaneTimeouts {
  readonly connectMs: number;
  /** Until the first content: response headers, and for streams the first content-bearing event. */
  readonly firstByteMs: number;
  /** Longest silence inside a response body. */
  readonly idleMs: number;
}

import type { Operation } from '../ir/operation.ts';
export type { Operation };

/** A non-chat operation's price, in that operation's unit (catalog/config `operation_prices:`). */
export interface OperationPrice {
  /** USD per million input tokens (embeddings, moderations). */
  readonly input?: number;
  readonly per_image?: number;
  /** USD per image by `<quality>/<size>` or `<size>`, over per_image. */
  readonly per_image_by_size?: Readonly<Record<string, number | undefined>>;
  readonly per_audio_second?: number;
  readonly per_million_characters?: number;
  readonly per_thousand_requests?: number;
}

export interface ModelRoute {
  readonly name: string;
  readonly provider: ProviderRuntime;
  readonly upstreamModel: string;
  readonly defaultMaxTokens: number;
  readonly price: Price | undefined;
  /** The operations this lane serves (default chat only). */
  readonly operations: ReadonlySet<Operation>;
  /** Prices of the operations other than chat, by operation (config over catalog). */
  readonly operationPrices: Readonly<Partial<Record<Operation, OperationPrice>>>;
  /** Cohere's input_type (Gemini's taskType) when the client's protocol has no such field. */
  readonly embeddingInputType: 'search_document' | 'search_query' | 'classification' | 'clustering';
  /** Requests in flight on this lane at most (undefined: no limit). */
  readonly maxConcurrent: number | undefined;
  readonly timeouts: LaneTimeouts;
}

export interface PoolRoute {
  readonly name: string;
  readonly members: readonly { readonly model: ModelRoute; readonly weight: number }[];
  readonly maxAttempts: number;
  readonly deadlineMs: number;
  readonly breaker: BreakerSettings;
}

export interface ListenAddress {
  readonly host: string;
  readonly port: number;
}

export interface Limits {
  readonly maxRequestBytes: number;
  /** What all request bodies in flight may hold together in one serving thread. */
  readonly maxRequestBytesInFlight: number;
  readonly connectTimeoutMs: number;
  readonly firstByteTimeoutMs: number;
  readonly idleTimeoutMs: number;
}

/** `server:`: how the data plane bounds slow and idle clients, and how long a stop may take. */
export interface ServerSettings {
  /** Request line and headers must arrive within this (408 and close otherwise). */
  readonly headerTimeoutMs: number;
  /** The whole request, body included, from its first byte (the answer is not timed). */
  readonly requestTimeoutMs: number;
  /** A kept-alive connection without a request is closed after this long. */
  readonly keepAliveTimeoutMs: number;
  /** Client connections per data-plane worker; 'auto' is resolved when the server starts. */
  readonly maxConnections: number | 'auto';
  /** How long requests in flight may take to finish after SIGTERM before they are cut. */
  readonly shutdownTimeoutMs: number;
  /** After SIGTERM, how long it keeps serving while /readyz says 503, before the drain. */
  readonly drainDelayMs: number;
}

/** OTLP/HTTP export (config `otlp:`), with header secrets read. */
export interface OtlpSettings {
  /** Base URL; `/v1/traces` and `/v1/metrics` are appended. */
  readonly endpoint: string;
  readonly headers: Readonly<Record<string, string>>;
  /** Prompt and completion text on spans: only when the operator turns it on. */
  readonly captureContent: boolean;
  readonly serviceName: string;
  readonly traces: boolean;
  readonly metrics: boolean;
  readonly metricsIntervalMs: number;
  readonly maxQueueSize: number;
  readonly timeoutMs: number;
}

/** The validated, resolved configuration the gateway runs on. Immutable. */
/** PEM text of a server certificate, its key and, for mTLS, the CA client certificates must be signed by. */
export interface TlsMaterial {
  readonly cert: string;
  readonly key: string;
  readonly clientCa: string | undefined;
}

export interface RuntimeConfig {
  /** The file it came from, or `(embedded default)`. */
  readonly source: string;
  readonly configVersion: string;
  readonly loadedAt: Date;
  readonly listen: ListenAddress;
  readonly adminListen: ListenAddress;
  readonly adminToken: string | undefined;
  /** PEM material for HTTPS (and mTLS when `clientCa` is set) on the admin plane. */
  readonly adminTls: TlsMaterial | undefined;
  /** The same for the data plane (`tls:`), served by every worker; absent: plain HTTP. */
  readonly tls: TlsMaterial | undefined;
  readonly providers: ReadonlyMap<string, ProviderRuntime>;
  readonly models: ReadonlyMap<string, ModelRoute>;
  readonly pools: ReadonlyMap<string, PoolRoute>;
  /** Breaker settings for models used on their own (pools carry their own, merged over these). */
  readonly breaker: BreakerSettings;
  readonly governance: boolean;
  readonly dbPath: string | undefined;
  /** database_url, read: the shared PostgreSQL store (exclusive with dbPath). */
  readonly databaseUrl: string | undefined;
  /** With databaseUrl: 503 (deny) or fail open (allow) while the database cannot be reached. */
  readonly onStoreError: 'deny' | 'allow';
  /** With databaseUrl: a reservation's lease (reservation_lease_seconds). */
  readonly reservationLeaseMs: number;
  /** governance_secret, read; undefined: the store keeps its own. */
  readonly governanceSecret: string | undefined;
  readonly limits: Limits;
  readonly server: ServerSettings;
  /** With governance on: GET /v1/models needs a valid virtual key. */
  readonly modelsRequireKey: boolean;
  /** `media_fetch:`: fetching image URLs for lanes that take bytes only. */
  readonly mediaFetch: MediaFetchSettings;
  /** `hooks:` in config order, secrets read. */
  readonly hooks: readonly HookSettings[];
  readonly logLevel: string;
  /** Data-plane worker threads ("auto" resolved to the core count); 1: the main thread serves. */
  readonly workers: number;
  /** GET /metrics on the data plane. */
  readonly metrics: { readonly enabled: boolean /** With governance on: a valid virtual key is needed to scrape. */; readonly requireKey: boolean };
  /** Undefined: no OTLP export. */
  readonly otlp: OtlpSettings | undefined;
  /** The teams under `teams:` that issue self-serve keys (those with a child_default), by name: what each key gets when first issued. */
  readonly teams: ReadonlyMap<string, TeamDefaults>;
  /** Every team under `teams:` with its budget (null: none), in the file's order; changes live (OwnerGovernance.setTeams). */
  readonly teamBudgets: readonly TeamBudget[];
  /** Self-serve keys over OIDC (`auth:`); undefined: /auth/token answers that it is not enabled. */
  readonly auth: SelfServeSettings | undefined;
}

/** A team's `child_default`, in the units governance keeps (null: no limit). */
export interface TeamDefaults {
  readonly name: string;
  readonly budgetMicrocents: bigint | null;
  readonly rpm: number | null;
}

export interface SelfServeSettings {
  /** The data plane as clients reach it, without a trailing slash; undefined: from each request's Host. */
  readonly publicUrl: string | undefined;
  readonly oidc: OidcSettings;
}

export interface OidcSettings {
  /** Exactly as the discovery document and the tokens say it. */
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string | undefined;
  /** A posted ID token's aud must include one of these (and a multi-audience token's azp must be one). */
  readonly audiences: readonly string[];
  /** undefined: the asymmetric algorithms the discovery document lists. */
  readonly algorithms: readonly string[] | undefined;
  readonly clockToleranceSeconds: number;
  readonly maxTokenAgeSeconds: number;
  readonly teamClaim: string;
  readonly defaultTeam: string | undefined;
  /** Asked for by the hosted sign-in page; always begins with openid. */
  readonly scopes: readonly string[];
  /** Read the team claim from the UserInfo endpoint with the person's access token. */
  readonly userinfo: boolean;
  /** http on loopback: openid-client is told to allow it (local test issuers only). */
  readonly insecureLoopbackIssuer: boolean;
}
