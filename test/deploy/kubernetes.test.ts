import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig, loadMigrateConfig } from '../../src/config';
import { MIGRATE_COMMAND, ROOT, SAMPLE_SECRETS, kubernetesDocuments, loadCompose, servedPaths } from '../helpers/deploy';

/**
 * deploy/kubernetes/ without a cluster: every object validated against the Kubernetes OpenAPI schemas of its
 * kind (kubernetes-models), and the objects consistent with each other and with the Hub.
 */

const FILES = readdirSync(join(ROOT, 'deploy/kubernetes')).filter((f) => f.endsWith('.yaml'));
const docs = FILES.flatMap((f) => kubernetesDocuments(f).map((doc) => ({ file: f, doc })));
const one = (kind: string) => {
  const found = docs.filter((d) => d.doc.kind === kind);
  expect(found).toHaveLength(1);
  return found[0]!.doc;
};

/** kubernetes-models is ESM-only: the model of an apiVersion is imported on demand. */
async function modelOf(apiVersion: string, kind: string): Promise<new (data: unknown) => { validate(): void }> {
  const module = await import(`kubernetes-models/${apiVersion}`);
  if (!module[kind]) throw new Error(`kubernetes-models has no ${kind} in ${apiVersion}`);
  return module[kind];
}

describe('deploy/kubernetes', () => {
  it('when each object is validated against the schema of its kind, then all are valid', async () => {
    expect(docs.map((d) => d.doc.kind).sort()).toEqual(['ConfigMap', 'Deployment', 'Job', 'PodDisruptionBudget', 'Secret', 'Service']);
    for (const { file, doc } of docs) {
      const Model = await modelOf(doc.apiVersion, doc.kind);
      expect(() => new Model(doc).validate()).not.toThrow();
      expect({ file, name: doc.metadata.name }).toEqual({ file, name: expect.stringMatching(/^hub/) });
    }
  });

  it('when a broken object is validated, then the schema check catches it', async () => {
    const Deployment = await modelOf('apps/v1', 'Deployment');
    const broken = structuredClone(one('Deployment'));
    broken.spec.replicas = 'three';
    expect(() => new Deployment(broken).validate()).toThrow(/replicas/);
  });

  it('when the Deployment runs, then three non-root replicas on a read-only root filesystem with resources and the Hub probes', () => {
    const deployment = one('Deployment');
    const pod = deployment.spec.template.spec;
    const [container] = pod.containers;
    expect(deployment.spec.replicas).toBe(3);
    expect(container.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'http' });
    expect(container.livenessProbe.httpGet).toEqual({ path: '/healthz', port: 'http' });
    for (const probe of [container.readinessProbe, container.livenessProbe, container.startupProbe]) expect(servedPaths()).toContain(probe.httpGet.path);
    expect(pod.securityContext.runAsNonRoot).toBe(true);
    expect(container.securityContext).toMatchObject({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });
    expect(container.resources.requests).toEqual(expect.objectContaining({ cpu: expect.any(String), memory: expect.any(String) }));
    expect(container.resources.limits.memory).toBeDefined();
  });

  it('when the Hub reads the ConfigMap and the Secret, then it is a valid production configuration matching the Deployment', () => {
    const configMap = one('ConfigMap');
    const secret = one('Secret');
    const deployment = one('Deployment');
    const [container] = deployment.spec.template.spec.containers;
    expect(container.envFrom).toEqual([{ configMapRef: { name: configMap.metadata.name } }, { secretRef: { name: secret.metadata.name } }]);
    // the example's placeholders replaced by values of the right shape, as an operator would
    const secrets = Object.fromEntries(
      Object.keys(secret.stringData).map((k) => [
        k,
        SAMPLE_SECRETS[k] ?? (k === 'DATABASE_URL' ? 'postgres://hub:pw@db:5432/hub' : k === 'REDIS_URL' ? 'redis://cache:6379' : 'x'),
      ]),
    );
    const config = loadConfig({ ...configMap.data, ...secrets });
    expect(configMap.data.NODE_ENV).toBe('production');
    expect(config.database.kind).toBe('postgres');
    expect(config.redisUrl).toBeDefined();
    expect(config.rateLimit.replicas).toBe(deployment.spec.replicas);
    expect(config.migrateOnStart).toBe(false);
    expect(container.ports).toEqual([{ name: 'http', containerPort: config.port }]);
    // shutdown: the grace period covers the preStop pause, the Hub's readiness grace and its drain deadline
    const preStopS = Number(container.lifecycle.preStop.exec.command[1]);
    expect(deployment.spec.template.spec.terminationGracePeriodSeconds).toBeGreaterThan(preStopS + (config.shutdownGraceMs + config.shutdownTimeoutMs) / 1000);
  });

  it("when traffic and disruptions are routed, then the Service and the PodDisruptionBudget select the Deployment's pods", () => {
    const labels = one('Deployment').spec.template.metadata.labels;
    const selects = (selector: Record<string, string>) => Object.entries(selector).every(([k, v]) => labels[k] === v);
    const service = one('Service');
    expect(selects(service.spec.selector)).toBe(true);
    expect(service.spec.ports[0].targetPort).toBe('http');
    const pdb = one('PodDisruptionBudget');
    expect(selects(pdb.spec.selector.matchLabels)).toBe(true);
    expect(pdb.spec.minAvailable).toBeLessThan(one('Deployment').spec.replicas);
    expect(selects(one('Deployment').spec.selector.matchLabels)).toBe(true);
  });

  it('when migrations run, then the Job runs the same command as Compose, with the same image as the Deployment', () => {
    const job = one('Job');
    const [container] = job.spec.template.spec.containers;
    expect(container.command).toEqual(MIGRATE_COMMAND);
    expect(container.command).toEqual(
      loadCompose({ ...SAMPLE_SECRETS, HUB_PUBLIC_URL: 'https://h', HUB_GOOGLE_CLIENT_ID: 'c', HUB_GOOGLE_CLIENT_SECRET: 's' }).services.migrate.command,
    );
    expect(container.image).toBe(one('Deployment').spec.template.spec.containers[0].image);
    const ref = container.env.find((e: { name: string }) => e.name === 'DATABASE_URL').valueFrom.secretKeyRef;
    expect(ref.name).toBe(one('Secret').metadata.name);
    expect(Object.keys(one('Secret').stringData)).toContain(ref.key);
    expect(loadMigrateConfig({ DATABASE_URL: 'postgres://hub:pw@db:5432/hub' }).database.kind).toBe('postgres');
    expect(job.spec.template.spec.securityContext.runAsNonRoot).toBe(true);
    expect(container.securityContext.readOnlyRootFilesystem).toBe(true);
  });
});
