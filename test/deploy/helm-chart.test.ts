// The Helm chart (deploy/helm/gateway): `helm lint`, then `helm template` with several value sets,
// each rendering parsed and held to what a deployment review asks: probes, a locked-down security
// context, a PodDisruptionBudget, credentials only by Secret reference, config.yaml from the
// ConfigMap (and accepted by the gateway's own loader), the one-replica rule of the embedded store,
// N replicas on PostgreSQL with the database URL only ever a Secret reference.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse, parseAllDocuments } from 'yaml';
import { afterAll, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { loadConfigText } from '../../server/config/load-config.ts';
import { ensureHelm, HELM_INSTALL_TIMEOUT_MS } from '../support/helm.ts';

const CHART = new URL('../../deploy/helm/gateway', import.meta.url).pathname;

type Manifest = Record<string, any>; // rendered Kubernetes objects, read loosely

let helm: string | undefined;
let skipReason = '';
let valuesDir: string;

beforeAll(async () => {
  const found = await ensureHelm();
  if ('skip' in found) skipReason = found.skip;
  else helm = found.helm;
  valuesDir = mkdtempSync(join(tmpdir(), 'gateway-helm-'));
}, HELM_INSTALL_TIMEOUT_MS + 60_000);

afterAll(() => rmSync(valuesDir, { recursive: true, force: true }));

function needHelm(ctx: TestContext): string {
  if (helm === undefined) ctx.skip(skipReason);
  return helm!;
}

let valuesCount = 0;
/** `helm template` with these values (a values file, as an operator writes one). */
async function render(ctx: TestContext, values: object = {}): Promise<{ ok: true; manifests: Manifest[] } | { ok: false; error: string }> {
  const file = join(valuesDir, `values-${valuesCount++}.yaml`);
  writeFileSync(file, JSON.stringify(values));
  try {
    const { stdout } = await promisify(execFile)(needHelm(ctx), ['template', 'rel', CHART, '--namespace', 'llm', '-f', file], { timeout: 60_000 });
    const manifests = parseAllDocuments(stdout)
      .map((d) => d.toJS() as Manifest)
      .filter((m) => m !== null);
    return { ok: true, manifests };
  } catch (e) {
    return { ok: false, error: String((e as { stderr?: string }).stderr ?? e) };
  }
}

async function renderOk(ctx: TestContext, values: object = {}): Promise<Manifest[]> {
  const result = await render(ctx, values);
  if (!result.ok) throw new Error(`helm template failed: ${result.error}`);
  return result.manifests;
}

async function renderError(ctx: TestContext, values: object): Promise<string> {
  const result = await render(ctx, values);
  if (result.ok) throw new Error('helm template rendered values it should have refused');
  return result.error;
}

const only = (manifests: Manifest[], kind: string): Manifest[] => manifests.filter((m) => m.kind === kind);
function one(manifests: Manifest[], kind: string): Manifest {
  const found = only(manifests, kind);
  expect(found, `exactly one ${kind}`).toHaveLength(1);
  return found[0]!;
}
const container = (manifests: Manifest[]): Manifest => one(manifests, 'Deployment').spec.template.spec.containers[0];
const renderedConfig = (manifests: Manifest[]): Manifest => parse(one(manifests, 'ConfigMap').data['config.yaml']) as Manifest;

describe('helm chart', { timeout: 60_000 }, () => {
  it('runs the gateway version of this checkout (appVersion is the default image tag)', async (ctx) => {
    const chart = parse(readFileSync(join(CHART, 'Chart.yaml'), 'utf8')) as Manifest;
    const version = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
    expect(chart.appVersion).toBe(version);
    expect(container(await renderOk(ctx)).image).toBe(`gateway:${version}`);
  });

  it('passes helm lint --strict', async (ctx) => {
    const { stdout } = await promisify(execFile)(needHelm(ctx), ['lint', '--strict', CHART], { timeout: 60_000 });
    expect(stdout).toContain('0 chart(s) failed');
  });

  it('probes liveness on /healthz and readiness on /readyz, on the data port', async (ctx) => {
    const c = container(await renderOk(ctx));
    expect(c.ports).toEqual([{ name: 'http', containerPort: 8080, protocol: 'TCP' }]);
    expect(c.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'http', scheme: 'HTTP' });
    expect(c.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'http', scheme: 'HTTP' });
    expect(c.startupProbe.httpGet.path).toBe('/healthz');
  });

  it('runs locked down: non-root, read-only root, no privilege escalation, no capabilities, RuntimeDefault seccomp, no API token', async (ctx) => {
    const manifests = await renderOk(ctx);
    const pod = one(manifests, 'Deployment').spec.template.spec;
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 10001, seccompProfile: { type: 'RuntimeDefault' } });
    expect(pod.automountServiceAccountToken).toBe(false);
    expect(one(manifests, 'ServiceAccount').automountServiceAccountToken).toBe(false);
    expect(pod.containers[0].securityContext).toMatchObject({
      runAsNonRoot: true,
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      privileged: false,
      capabilities: { drop: ['ALL'] },
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(pod.containers[0].securityContext.capabilities.add).toBeUndefined();
    expect(pod.containers[0].resources.requests).toBeDefined();
    expect(pod.containers[0].resources.limits.memory).toBeDefined();
  });

  it("reads config.yaml from the ConfigMap, with the chart's listen, loopback admin plane and db_path on the volume; the gateway accepts it", async (ctx) => {
    const manifests = await renderOk(ctx);
    const c = container(manifests);
    const pod = one(manifests, 'Deployment').spec.template.spec;
    expect(c.args).toEqual(['--config', '/etc/gateway/config.yaml']);
    expect(c.volumeMounts).toContainEqual({ name: 'config', mountPath: '/etc/gateway', readOnly: true });
    expect(pod.volumes).toContainEqual({ name: 'config', configMap: { name: one(manifests, 'ConfigMap').metadata.name } });
    const text = one(manifests, 'ConfigMap').data['config.yaml'] as string;
    const config = parse(text) as Manifest;
    expect(config).toMatchObject({ listen: '0.0.0.0:8080', admin_listen: '127.0.0.1:8081', db_path: '/var/lib/gateway/gateway.db', governance: 'on' });
    // The gateway's own loader (what --validate runs) accepts the rendered file.
    const loaded = loadConfigText(text, 'config.yaml', '/etc/gateway', { env: {} });
    expect(loaded.governance).toBe(true);
    expect(loaded.dbPath).toBe('/var/lib/gateway/gateway.db');
    // The pod rolls when the config changes.
    expect(one(manifests, 'Deployment').spec.template.metadata.annotations['checksum/config']).toMatch(/^[0-9a-f]{64}$/);
  });

  it('keeps the embedded store on a PersistentVolumeClaim, one replica, replaced with Recreate', async (ctx) => {
    const manifests = await renderOk(ctx);
    const deployment = one(manifests, 'Deployment');
    const claim = one(manifests, 'PersistentVolumeClaim');
    expect(deployment.spec.replicas).toBe(1);
    expect(deployment.spec.strategy).toEqual({ type: 'Recreate' });
    expect(deployment.spec.template.spec.volumes).toContainEqual({ name: 'store', persistentVolumeClaim: { claimName: claim.metadata.name } });
    expect(container(manifests).volumeMounts).toContainEqual({ name: 'store', mountPath: '/var/lib/gateway' });
    expect(claim.metadata.annotations['helm.sh/resource-policy']).toBe('keep');
    expect(claim.spec.accessModes).toEqual(['ReadWriteOnce']);
  });

  it('refuses more than one replica with the embedded store, pointing at PostgreSQL for more', async (ctx) => {
    expect(await renderError(ctx, { replicaCount: 3 })).toMatch(/replicaCount is 3 but store\.mode is embedded.*store\.mode postgres/);
    expect(await renderError(ctx, { store: { mode: 'redis' } })).toMatch(/store\.mode "redis" is not one of/);
  });

  it('runs N stateless replicas with store.mode none (governance off): no claim, rolling updates, a PDB that keeps one up', async (ctx) => {
    const values = { store: { mode: 'none' }, replicaCount: 3, config: { governance: 'off' }, podDisruptionBudget: { minAvailable: 2 } };
    const manifests = await renderOk(ctx, values);
    expect(only(manifests, 'PersistentVolumeClaim')).toHaveLength(0);
    expect(one(manifests, 'Deployment').spec.replicas).toBe(3);
    expect(one(manifests, 'Deployment').spec.strategy.type).toBe('RollingUpdate');
    expect(renderedConfig(manifests).db_path).toBeUndefined();
    expect(one(manifests, 'PodDisruptionBudget').spec).toMatchObject({ minAvailable: 2 });
    // Governance needs a store.
    expect(await renderError(ctx, { store: { mode: 'none' }, replicaCount: 2 })).toMatch(/governance is on/);
  });

  it('runs N replicas on PostgreSQL: database_url an { env: } reference, the URL from the named Secret, no claim, rolling updates, a PDB', async (ctx) => {
    const values = { store: { mode: 'postgres', postgres: { existingSecret: 'gateway-db', key: 'url' } }, replicaCount: 3 };
    const manifests = await renderOk(ctx, values);
    const deployment = one(manifests, 'Deployment');
    expect(deployment.spec.replicas).toBe(3);
    expect(deployment.spec.strategy).toEqual({ type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } });
    expect(only(manifests, 'PersistentVolumeClaim')).toHaveLength(0);
    expect(deployment.spec.template.spec.volumes.map((v: Manifest) => v.name)).not.toContain('store');
    expect(container(manifests).volumeMounts.map((m: Manifest) => m.name)).not.toContain('store');
    const config = renderedConfig(manifests);
    expect(config.database_url).toEqual({ env: 'GATEWAY_DATABASE_URL' });
    expect(config.db_path).toBeUndefined();
    expect(container(manifests).env).toEqual([{ name: 'GATEWAY_DATABASE_URL', valueFrom: { secretKeyRef: { name: 'gateway-db', key: 'url' } } }]);
    expect(only(manifests, 'Secret')).toHaveLength(0); // the chart points at the operator's Secret, never makes one
    // The gateway's own loader accepts the rendered file, with the variable the pod gets from the Secret.
    const text = one(manifests, 'ConfigMap').data['config.yaml'] as string;
    const url = 'postgres://gateway:pw@db.internal:5432/gateway';
    expect(loadConfigText(text, 'config.yaml', '/etc/gateway', { env: { GATEWAY_DATABASE_URL: url } })).toMatchObject({
      governance: true,
      databaseUrl: url,
      dbPath: undefined,
      onStoreError: 'deny',
      reservationLeaseMs: 30_000,
    });
    // The store's failure policy and lease, from values.
    const tuned = await renderOk(ctx, {
      ...values,
      store: { ...values.store, postgres: { ...values.store.postgres, onStoreError: 'allow', reservationLeaseSeconds: 10 } },
    });
    const tunedText = one(tuned, 'ConfigMap').data['config.yaml'] as string;
    expect(parse(tunedText)).toMatchObject({ on_store_error: 'allow', reservation_lease_seconds: 10 });
    expect(loadConfigText(tunedText, 'config.yaml', '/etc/gateway', { env: { GATEWAY_DATABASE_URL: url } })).toMatchObject({
      onStoreError: 'allow',
      reservationLeaseMs: 10_000,
    });
    const pdb = one(manifests, 'PodDisruptionBudget');
    expect(pdb.spec).toMatchObject({ maxUnavailable: 1 }); // drains take one pod at a time
    expect(await renderOk(ctx, { ...values, podDisruptionBudget: { minAvailable: 2 } }).then((m) => one(m, 'PodDisruptionBudget').spec.minAvailable)).toBe(2);
  });

  it('renders no database URL, password or secret value anywhere, the ConfigMap included', async (ctx) => {
    const secretLooking = 'postgres://gateway:s3cret-pw@db.internal:5432/gateway';
    // Even a URL the operator pastes into the config is replaced by the chart's reference.
    const manifests = await renderOk(ctx, {
      store: { mode: 'postgres', postgres: { existingSecret: 'gateway-db', key: 'url' } },
      replicaCount: 2,
      configFile: `models:\n  demo: { provider: demo, model: demo-echo }\ngovernance: "on"\ndatabase_url: ${secretLooking}\n`,
    });
    const configMapText = one(manifests, 'ConfigMap').data['config.yaml'] as string;
    expect(parse(configMapText).database_url).toEqual({ env: 'GATEWAY_DATABASE_URL' });
    const everything = JSON.stringify(manifests);
    expect(everything).not.toContain('s3cret-pw');
    expect(everything).not.toContain('postgres://');
  });

  it('refuses PostgreSQL mode without its Secret, a db_path beside it, or the variable given twice; and database_url outside it', async (ctx) => {
    expect(await renderError(ctx, { store: { mode: 'postgres' }, replicaCount: 3 })).toMatch(/store\.postgres\.existingSecret is empty/);
    const postgres = { mode: 'postgres', postgres: { existingSecret: 'gateway-db' } };
    expect(await renderError(ctx, { store: postgres, config: { db_path: './x.db', models: { demo: { provider: 'demo', model: 'demo-echo' } } } })).toMatch(
      /postgres but the config sets db_path/,
    );
    expect(await renderError(ctx, { store: postgres, secretEnv: { GATEWAY_DATABASE_URL: { secretName: 'other', key: 'url' } } })).toMatch(
      /set it in one place/,
    );
    expect(
      await renderError(ctx, { config: { database_url: { env: 'GATEWAY_DATABASE_URL' }, models: { demo: { provider: 'demo', model: 'demo-echo' } } } }),
    ).toMatch(/sets database_url but store\.mode is embedded/);
  });

  it('has a PodDisruptionBudget and a Service that select the pods', async (ctx) => {
    const manifests = await renderOk(ctx);
    const podLabels = one(manifests, 'Deployment').spec.template.metadata.labels as Record<string, string>;
    const pdb = one(manifests, 'PodDisruptionBudget');
    expect(pdb.apiVersion).toBe('policy/v1');
    expect(pdb.spec.maxUnavailable).toBe(1); // one replica: drains may proceed
    for (const selector of [pdb.spec.selector.matchLabels, one(manifests, 'Service').spec.selector] as Record<string, string>[]) {
      expect(Object.keys(selector).length).toBeGreaterThan(0);
      for (const [k, v] of Object.entries(selector)) expect(podLabels[k]).toBe(v);
    }
    expect(one(manifests, 'Service').spec.ports).toEqual([{ name: 'http', port: 8080, targetPort: 'http', protocol: 'TCP' }]);
  });

  it('takes credentials from existing Secrets by reference only, never inlined', async (ctx) => {
    const values = {
      config: {
        providers: { openai: { api_key: { env: 'OPENAI_API_KEY' } }, anthropic: { api_key: { file: '/run/secrets/anthropic/api-key' } } },
        models: { gpt: { provider: 'openai', model: 'gpt-4.1-mini' }, claude: { provider: 'anthropic', model: 'claude-sonnet-4-5' } },
        governance: 'on',
      },
      secretEnv: { OPENAI_API_KEY: { secretName: 'llm-credentials', key: 'openai' } },
      secretFiles: [{ secretName: 'anthropic-credentials', mountPath: '/run/secrets/anthropic' }],
      store: { governanceSecret: { secretName: 'gateway-governance', key: 'secret' } },
    };
    const manifests = await renderOk(ctx, values);
    expect(only(manifests, 'Secret')).toHaveLength(0); // the chart makes none: it only points at the operator's
    const c = container(manifests);
    expect(c.env).toEqual([
      { name: 'OPENAI_API_KEY', valueFrom: { secretKeyRef: { name: 'llm-credentials', key: 'openai' } } },
      { name: 'GATEWAY_GOVERNANCE_SECRET', valueFrom: { secretKeyRef: { name: 'gateway-governance', key: 'secret' } } },
    ]);
    expect(c.env.some((e: Manifest) => 'value' in e)).toBe(false);
    expect(c.volumeMounts).toContainEqual({ name: 'secret-file-0', mountPath: '/run/secrets/anthropic', readOnly: true });
    expect(one(manifests, 'Deployment').spec.template.spec.volumes).toContainEqual({
      name: 'secret-file-0',
      secret: { secretName: 'anthropic-credentials', defaultMode: 0o440 },
    });
    expect(renderedConfig(manifests).providers.openai.api_key).toEqual({ env: 'OPENAI_API_KEY' });
  });

  it('refuses a config that reads an environment variable nothing provides', async (ctx) => {
    const error = await renderError(ctx, {
      config: { providers: { openai: { api_key: { env: 'OPENAI_API_KEY' } } }, models: { gpt: { provider: 'openai', model: 'gpt-4.1-mini' } } },
    });
    expect(error).toMatch(/reads the environment variable OPENAI_API_KEY .*secretEnv\.OPENAI_API_KEY/);
  });

  it('keeps the admin plane unexposed by default; exposing it needs a token Secret and TLS', async (ctx) => {
    const manifests = await renderOk(ctx);
    expect(only(manifests, 'Service')).toHaveLength(1);
    expect(container(manifests).ports.map((p: Manifest) => p.name)).toEqual(['http']);
    expect(await renderError(ctx, { admin: { expose: true } })).toMatch(/no admin token/);
    expect(await renderError(ctx, { admin: { expose: true, tokenSecret: { name: 'gateway-admin' } } })).toMatch(/needs TLS/);

    const exposed = await renderOk(ctx, {
      admin: { expose: true, tokenSecret: { name: 'gateway-admin', key: 'token' }, tls: { secretName: 'gateway-admin-tls', clientCa: true } },
    });
    const admin = only(exposed, 'Service').find((s) => s.metadata.name.endsWith('-admin'))!;
    expect(admin.spec.type).toBe('ClusterIP');
    expect(admin.spec.ports).toEqual([{ name: 'admin', port: 8081, targetPort: 'admin', protocol: 'TCP' }]);
    expect(container(exposed).env).toContainEqual({ name: 'GATEWAY_ADMIN_TOKEN', valueFrom: { secretKeyRef: { name: 'gateway-admin', key: 'token' } } });
    expect(renderedConfig(exposed)).toMatchObject({
      admin_listen: '0.0.0.0:8081',
      admin_tls: { cert: '/etc/gateway-tls/admin/tls.crt', key: '/etc/gateway-tls/admin/tls.key', client_ca: '/etc/gateway-tls/admin/ca.crt' },
    });
  });

  it('gives the pod a termination grace above the drain the config allows', async (ctx) => {
    const grace = async (server?: object) =>
      one(await renderOk(ctx, server ? { config: { models: { demo: { provider: 'demo', model: 'demo-echo' } }, server } } : {}), 'Deployment').spec.template
        .spec.terminationGracePeriodSeconds as number;
    expect(await grace()).toBe(35); // default shutdown_timeout_ms 25000, + 10 s
    expect(await grace({ shutdown_timeout_ms: 60000 })).toBe(70);
    expect(await grace({ shutdown_timeout_ms: 60500, drain_delay_ms: 5000 })).toBe(76);
  });

  it("takes a whole config.yaml (configFile), keeping the chart's ports and volume, and speaks HTTPS to probes under data-plane TLS", async (ctx) => {
    const configFile =
      'listen: 127.0.0.1:9999\ndb_path: ./local.db\nmodels:\n  demo: { provider: demo, model: demo-echo }\ntls: { cert: /run/tls/tls.crt, key: /run/tls/tls.key }\n';
    const manifests = await renderOk(ctx, { configFile, config: { ignored: true } });
    const config = renderedConfig(manifests);
    expect(config).toMatchObject({
      listen: '0.0.0.0:8080',
      db_path: '/var/lib/gateway/gateway.db',
      models: { demo: { provider: 'demo', model: 'demo-echo' } },
    });
    expect(config.ignored).toBeUndefined();
    expect(container(manifests).readinessProbe.httpGet.scheme).toBe('HTTPS');
    expect(container(manifests).livenessProbe.httpGet.scheme).toBe('HTTPS');
    expect(await renderError(ctx, { configFile: '- not\n- a mapping\n' })).toMatch(/configFile is not a YAML mapping/);
  });
});

describe('helm chart, data-plane TLS', { timeout: 60_000 }, () => {
  it("mounts the tls Secret as the config's tls:, probes over HTTPS; with client certificates required, probes check the port", async (ctx) => {
    const manifests = await renderOk(ctx, { tls: { secretName: 'gateway-tls' } });
    expect(renderedConfig(manifests).tls).toEqual({ cert: '/etc/gateway-tls/data/tls.crt', key: '/etc/gateway-tls/data/tls.key' });
    expect(container(manifests).volumeMounts).toContainEqual({ name: 'data-tls', mountPath: '/etc/gateway-tls/data', readOnly: true });
    expect(one(manifests, 'Deployment').spec.template.spec.volumes).toContainEqual({
      name: 'data-tls',
      secret: { secretName: 'gateway-tls', defaultMode: 0o440 },
    });
    expect(container(manifests).readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'http', scheme: 'HTTPS' });

    const mtls = await renderOk(ctx, { tls: { secretName: 'gateway-tls', clientCa: true } });
    expect(renderedConfig(mtls).tls.client_ca).toBe('/etc/gateway-tls/data/ca.crt');
    for (const probe of ['startupProbe', 'livenessProbe', 'readinessProbe']) {
      expect(container(mtls)[probe].tcpSocket, probe).toEqual({ port: 'http' });
      expect(container(mtls)[probe].httpGet, probe).toBeUndefined();
    }
  });
});

describe('helm chart, as README.md ("Kubernetes") installs it', { timeout: 60_000 }, () => {
  it("renders the README's my-values.yaml into a config the gateway accepts, secrets by reference", async (ctx) => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const block = /```yaml\n# my-values\.yaml\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(block, 'README.md has the my-values.yaml example').toBeDefined();
    const manifests = await renderOk(ctx, parse(block!) as object);
    const text = one(manifests, 'ConfigMap').data['config.yaml'] as string;
    const env = Object.fromEntries(
      container(manifests).env.map((e: Manifest) => [e.name, `stand-in for ${e.valueFrom.secretKeyRef.name}/${e.valueFrom.secretKeyRef.key}`]),
    );
    expect(Object.keys(env).sort()).toEqual(['ANTHROPIC_API_KEY', 'GATEWAY_GOVERNANCE_SECRET', 'OPENAI_API_KEY']);
    const loaded = loadConfigText(text, 'config.yaml', '/etc/gateway', { env });
    expect([...loaded.models.keys()].sort()).toEqual(['claude', 'gpt']); // the demo model is only for an install with no config
    expect(text).not.toContain('stand-in');
    expect(one(manifests, 'PersistentVolumeClaim').spec.resources.requests.storage).toBe('5Gi');
  });
});
