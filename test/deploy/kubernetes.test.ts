import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { loadConfig, loadMigrateConfig } from '../../src/config';
import { MIGRATE_COMMAND, OVERLAYS, SAMPLE_SECRETS, kubernetesDocuments, loadCompose, read, renderKustomization, servedPaths } from '../helpers/deploy';
import { deploymentProblems, renderOnTop, renderVariant, tagOf } from '../helpers/kubernetes';

/**
 * deploy/kubernetes/ without a cluster: each overlay rendered by `kubectl kustomize` exactly as `kubectl apply -k`
 * would send it, every object validated against the schema of its kind (kubernetes-models; prometheus-operator's
 * models for ServiceMonitor and PrometheusRule), the objects consistent with each other and with the Hub, and
 * seeded mistakes caught.
 */

// kubectl kustomize, and the schema validators' first import, take a few seconds each on a loaded machine.
jest.setTimeout(60_000);

const rendered = Object.fromEntries(OVERLAYS.map((o) => [o, renderKustomization(`deploy/kubernetes/overlays/${o}`)]));
const exampleSecret = kubernetesDocuments('secret.example.yaml')[0];
const one = (objects: any[], kind: string) => {
  const found = objects.filter((o) => o.kind === kind);
  expect(found).toHaveLength(1);
  return found[0];
};

/** kubernetes-models is ESM-only: the model of an apiVersion is imported on demand; CRDs from their own package. */
async function modelOf(apiVersion: string, kind: string): Promise<new (data: unknown) => { validate(): void }> {
  const module = apiVersion.startsWith('monitoring.coreos.com/')
    ? await import(`@kubernetes-models/prometheus-operator/${apiVersion}/${kind}`)
    : await import(`kubernetes-models/${apiVersion}`);
  if (!module[kind]) throw new Error(`no model of ${kind} in ${apiVersion}`);
  return module[kind];
}

async function schemaProblems(objects: any[]): Promise<string[]> {
  const problems: string[] = [];
  for (const o of objects) {
    const Model = await modelOf(o.apiVersion, o.kind);
    try {
      new Model(o).validate();
    } catch (err) {
      problems.push(`${o.kind} ${o.metadata.name}: ${(err as Error).message.split('\n')[0]}`);
    }
  }
  return problems;
}

/** The Hub's configuration as a pod reads it: the ConfigMap, and the X_FILE paths served from a directory holding the example Secret's keys. */
function podConfig(objects: any[]) {
  const dir = mkdtempSync(join(tmpdir(), 'hub-secret-volume-'));
  try {
    const sample: Record<string, string> = {
      ...SAMPLE_SECRETS,
      DATABASE_URL: 'postgres://hub:pw@db:5432/hub',
      REDIS_URL: 'redis://:pw@cache:6379',
      HUB_GOOGLE_CLIENT_SECRET: 'GOCSPX-x',
    };
    for (const key of Object.keys(exampleSecret.stringData)) writeFileSync(join(dir, key), `${sample[key] ?? 'x'}\n`);
    const data: Record<string, string> = one(objects, 'ConfigMap').data;
    const env = Object.fromEntries(Object.entries(data).map(([k, v]) => [k, k.endsWith('_FILE') ? v.replace('/run/secrets/hub', dir) : v]));
    return { config: loadConfig(env), data };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe.each(OVERLAYS)('deploy/kubernetes/overlays/%s', (overlay) => {
  const objects = rendered[overlay]!;
  const deployment = () => one(objects, 'Deployment');
  const container = () => deployment().spec.template.spec.containers[0];

  it('when rendered, then it holds the whole deployment and every object is valid against the schema of its kind', async () => {
    expect(objects.map((o) => o.kind).sort()).toEqual([
      'ConfigMap',
      'Deployment',
      'HorizontalPodAutoscaler',
      'Ingress',
      'Job',
      'NetworkPolicy',
      'PodDisruptionBudget',
      'PrometheusRule',
      'Service',
      'ServiceMonitor',
    ]);
    expect(await schemaProblems(objects)).toEqual([]);
    expect(deploymentProblems(objects)).toEqual([]);
    expect(new Set(objects.map((o) => o.metadata.namespace)).size).toBe(1); // the overlay's namespace on everything
  });

  it("when the image is resolved, then it comes from the overlay's images: alone, and the migration Job is named after its tag", () => {
    const { images } = parse(read(`deploy/kubernetes/overlays/${overlay}/kustomization.yaml`));
    expect(images).toHaveLength(1);
    const image = `${images[0].newName}:${images[0].newTag}`;
    expect(container().image).toBe(image);
    expect(one(objects, 'Job').spec.template.spec.containers[0].image).toBe(image);
    expect(one(objects, 'Job').metadata.name).toBe(`hub-migrate-${images[0].newTag}`);
    for (const file of ['deployment.yaml', 'migrate-job.yaml']) expect(read(`deploy/kubernetes/base/${file}`)).not.toContain('registry.example.com');
  });

  it('when the Hub reads the ConfigMap and the secret files, then it is a valid production configuration matching the objects', () => {
    const { config, data } = podConfig(objects);
    const ingress = one(objects, 'Ingress');
    expect(data.NODE_ENV).toBe('production');
    expect(config.publicUrl).toBe(`https://${ingress.spec.rules[0].host}`);
    expect(config.database.kind).toBe('postgres');
    expect(config.redisUrl).toBeDefined();
    expect(config.migrateOnStart).toBe(false);
    expect(config.rateLimit.replicas).toBe(one(objects, 'HorizontalPodAutoscaler').spec.minReplicas);
    expect(container().ports).toEqual([
      { name: 'http', containerPort: config.port },
      { name: 'metrics', containerPort: config.observability.metricsPort },
    ]);
    // every secret is a file of the mounted Secret, none in the environment
    const mount = container().volumeMounts.find((m: { name: string }) => m.name === 'secrets');
    const volume = deployment().spec.template.spec.volumes.find((v: { name: string }) => v.name === 'secrets');
    expect(volume.secret.secretName).toBe(exampleSecret.metadata.name);
    expect(mount).toMatchObject({ mountPath: '/run/secrets/hub', readOnly: true });
    const files = Object.entries(data).filter(([k]) => k.endsWith('_FILE'));
    expect(files.sort()).toEqual(
      Object.keys(exampleSecret.stringData)
        .map((key) => [`${key}_FILE`, `/run/secrets/hub/${key}`])
        .sort(),
    );
    expect(container().envFrom).toEqual([{ configMapRef: { name: one(objects, 'ConfigMap').metadata.name } }]);
    expect(container().env).toBeUndefined();
    // shutdown: the grace period covers the preStop pause, the Hub's readiness grace and its drain deadline
    const preStopS = Number(container().lifecycle.preStop.exec.command[1]);
    expect(deployment().spec.template.spec.terminationGracePeriodSeconds).toBeGreaterThan(
      preStopS + (config.shutdownGraceMs + config.shutdownTimeoutMs) / 1000,
    );
  });

  it('when the Deployment runs, then non-root replicas on a read-only root filesystem with resources and the Hub probes', () => {
    const pod = deployment().spec.template.spec;
    for (const probe of [container().readinessProbe, container().livenessProbe, container().startupProbe]) {
      expect(servedPaths()).toContain(probe.httpGet.path);
      expect(probe.httpGet.port).toBe('http');
    }
    expect(container().readinessProbe.httpGet.path).toBe('/readyz');
    expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, fsGroup: 1000 });
    expect(container().securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });
    expect(container().resources.requests).toEqual(expect.objectContaining({ cpu: expect.any(String), memory: expect.any(String) }));
    expect(one(objects, 'PodDisruptionBudget').spec.minAvailable).toBeLessThan(one(objects, 'HorizontalPodAutoscaler').spec.minReplicas);
  });

  it('when traffic flows, then the Ingress serves HTTPS to the API port only, and the NetworkPolicy lets in only the Ingress controller and Prometheus', () => {
    const ingress = one(objects, 'Ingress');
    expect(ingress.metadata.annotations['cert-manager.io/cluster-issuer']).toMatch(/^letsencrypt/);
    expect(ingress.spec.tls[0].secretName).toMatch(/tls$/);
    const policy = one(objects, 'NetworkPolicy').spec;
    expect(policy.policyTypes).toEqual(['Ingress', 'Egress']);
    expect(policy.ingress.map((r: any) => [r.from[0].namespaceSelector.matchLabels['kubernetes.io/metadata.name'], r.ports.map((p: any) => p.port)])).toEqual([
      ['ingress-nginx', ['http']],
      ['monitoring', ['metrics']],
    ]);
    const egressPorts = policy.egress.flatMap((r: any) => r.ports.map((p: any) => `${p.port}/${p.protocol}`));
    expect(egressPorts).toEqual(['53/UDP', '53/TCP', '5432/TCP', '6379/TCP', '443/TCP']);
    const https = policy.egress.find((r: any) => r.ports[0].port === 443);
    expect(https.to[0].ipBlock.except).toContain('169.254.169.254/32'); // never the cloud metadata endpoint
    const monitor = one(objects, 'ServiceMonitor');
    expect(monitor.spec.endpoints).toEqual([expect.objectContaining({ port: 'metrics', path: '/metrics' })]);
  });

  it("when migrations run, then the Job runs the command Compose runs, reading DATABASE_URL from the Secret's file", () => {
    const job = one(objects, 'Job');
    const [c] = job.spec.template.spec.containers;
    expect(c.command).toEqual(MIGRATE_COMMAND);
    expect(c.command).toEqual(
      loadCompose({ ...SAMPLE_SECRETS, HUB_PUBLIC_URL: 'https://h', HUB_GOOGLE_CLIENT_ID: 'c', HUB_GOOGLE_CLIENT_SECRET: 's' }).services.migrate.command,
    );
    expect(c.env).toEqual([{ name: 'DATABASE_URL_FILE', value: '/run/secrets/hub/DATABASE_URL' }]);
    expect(job.spec.template.spec.volumes[0].secret).toMatchObject({
      secretName: exampleSecret.metadata.name,
      items: [{ key: 'DATABASE_URL', path: 'DATABASE_URL' }],
    });
    expect(job.metadata.labels['app.kubernetes.io/component']).toBe('migrate'); // what `kubectl apply -l` selects it by
    expect(job.spec.template.spec.securityContext.runAsNonRoot).toBe(true);
    expect(c.securityContext.readOnlyRootFilesystem).toBe(true);
  });
});

describe('releases and seeded mistakes', () => {
  const production = 'deploy/kubernetes/overlays/production';

  it('when the next release changes only the tag, then its migration Job is a new Job, and nothing else is wrong', () => {
    const next = renderVariant(production, (k) => k.replace(/newTag: \S+/, 'newTag: 0.1.1'));
    expect(deploymentProblems(next)).toEqual([]);
    const jobOf = (objects: any[]) => one(objects, 'Job').metadata.name;
    expect(jobOf(next)).toBe('hub-migrate-0.1.1');
    expect(jobOf(next)).not.toBe(jobOf(rendered.production!));
    expect(tagOf(one(next, 'Deployment').spec.template.spec.containers[0].image)).toBe('0.1.1');
  });

  it('when an Ingress has no TLS secret, then the check names the host', () => {
    const objects = renderOnTop(production, 'patches:\n  - target: {kind: Ingress}\n    patch: |-\n      - op: remove\n        path: /spec/tls/0/secretName\n');
    expect(deploymentProblems(objects)).toEqual(['Ingress hub: host hub.example.com has no TLS secret (tls[].secretName)']);
  });

  it('when the migration Job has a fixed name (one name for every release), then the check reports the clash', () => {
    const objects = renderOnTop(
      production,
      'patches:\n  - target: {kind: Job}\n    patch: |-\n      - op: replace\n        path: /metadata/name\n        value: hub-migrate\n',
    );
    expect(deploymentProblems(objects)).toEqual([
      'Job hub-migrate: its name is not hub-migrate-0.1.0, so the next release would clash with a finished Job of the same name',
    ]);
  });

  it("when a further overlay retags the image without renaming the Job, then the Job would clash with the earlier release's", () => {
    const objects = renderOnTop(production, 'images:\n  - name: registry.example.com/hub\n    newTag: 0.3.0\n');
    expect(deploymentProblems(objects)).toEqual([
      'Job hub-migrate-0.1.0: its name is not hub-migrate-0.3.0, so the next release would clash with a finished Job of the same name',
    ]);
  });

  it('when the example Secret is read, then it is a valid Secret in the production namespace with a placeholder for every value', async () => {
    expect(await schemaProblems([exampleSecret])).toEqual([]);
    expect(exampleSecret.metadata.namespace).toBe(one(rendered.production!, 'Deployment').metadata.namespace);
    for (const [key, value] of Object.entries<string>(exampleSecret.stringData))
      expect({ key, placeholder: value.includes('REPLACE') }).toEqual({ key, placeholder: true });
  });

  it('when an object is mistyped, then the schema check catches it', async () => {
    const broken = structuredClone(rendered.production!);
    one(broken, 'HorizontalPodAutoscaler').spec.minReplicas = 'three';
    one(broken, 'ServiceMonitor').spec.endpoints[0].interval = 30;
    const problems = await schemaProblems(broken);
    expect(problems).toEqual([expect.stringMatching(/^HorizontalPodAutoscaler hub: .*minReplicas/), expect.stringMatching(/^ServiceMonitor hub: .*interval/)]);
  });

  it("when the migrate command reads the Job's file, then it needs nothing else", () => {
    const dir = mkdtempSync(join(tmpdir(), 'hub-migrate-file-'));
    try {
      writeFileSync(join(dir, 'DATABASE_URL'), 'postgres://hub:pw@db:5432/hub\n');
      expect(loadMigrateConfig({ DATABASE_URL_FILE: join(dir, 'DATABASE_URL') }).database.kind).toBe('postgres');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
