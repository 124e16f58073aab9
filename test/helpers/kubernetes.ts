import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { ROOT, renderKustomization } from './deploy';

/**
 * Checks of a rendered overlay that no schema makes: the objects agree with each other (the Ingress's TLS, the
 * Service's ports, the selectors, the migration Job's name and image) the way a cluster would need them to.
 * Each problem is one sentence naming the object.
 */

type Obj = any;
const byKind = (objects: Obj[], kind: string): Obj[] => objects.filter((o) => o.kind === kind);
const selects = (selector: Record<string, string>, labels: Record<string, string>) => Object.entries(selector).every(([k, v]) => labels?.[k] === v);
/** A Job's name is a label value of its pods (batch.kubernetes.io/job-name): a DNS label, at most 63 characters. */
const DNS_LABEL = /^[a-z0-9]([-a-z0-9.]{0,61}[a-z0-9])?$/;

/** The tag of an image reference `registry/name:tag` (undefined when it has none or is pinned by digest only). */
export function tagOf(image: string): string | undefined {
  const last = image.slice(image.lastIndexOf('/') + 1);
  if (last.includes('@')) return undefined;
  return last.includes(':') ? last.slice(last.indexOf(':') + 1) : undefined;
}

export function deploymentProblems(objects: Obj[]): string[] {
  const problems: string[] = [];
  const [deployment] = byKind(objects, 'Deployment');
  const [service] = byKind(objects, 'Service');
  const hubContainer = deployment.spec.template.spec.containers.find((c: Obj) => c.name === 'hub');
  const image: string = hubContainer.image;
  const tag = tagOf(image);
  if (!tag) problems.push(`Deployment hub: image ${image} has no tag (the overlay's images: sets one)`);

  for (const ingress of byKind(objects, 'Ingress')) {
    const covered = new Map<string, string | undefined>();
    for (const tls of ingress.spec.tls ?? []) for (const host of tls.hosts ?? []) covered.set(host, tls.secretName);
    for (const rule of ingress.spec.rules ?? []) {
      if (!covered.has(rule.host))
        problems.push(`Ingress ${ingress.metadata.name}: host ${rule.host} is not in its tls hosts (it would be served over plain HTTP)`);
      else if (!covered.get(rule.host)) problems.push(`Ingress ${ingress.metadata.name}: host ${rule.host} has no TLS secret (tls[].secretName)`);
      for (const path of rule.http?.paths ?? []) {
        const backend = path.backend.service;
        if (backend.name !== service.metadata.name || !service.spec.ports.some((p: Obj) => p.name === backend.port.name))
          problems.push(`Ingress ${ingress.metadata.name}: backend ${backend.name}:${backend.port.name} is not a port of Service ${service.metadata.name}`);
        if (backend.port.name === 'metrics') problems.push(`Ingress ${ingress.metadata.name}: routes the metrics port`);
      }
    }
  }

  for (const job of byKind(objects, 'Job')) {
    const name: string = job.metadata.name;
    const jobImage: string = job.spec.template.spec.containers[0].image;
    if (jobImage !== image) problems.push(`Job ${name}: runs ${jobImage}, not the Deployment's ${image}`);
    // One Job per release: a name that does not change with the image clashes with the previous release's
    // finished Job, whose pod template cannot change.
    if (tag && name !== `hub-migrate-${tag}`)
      problems.push(`Job ${name}: its name is not hub-migrate-${tag}, so the next release would clash with a finished Job of the same name`);
    if (!DNS_LABEL.test(name)) problems.push(`Job ${name}: not a valid Job name (lowercase letters, digits, '.', '-', at most 63)`);
    if (job.spec.ttlSecondsAfterFinished === undefined) problems.push(`Job ${name}: finished Jobs are never removed (ttlSecondsAfterFinished)`);
  }

  const podLabels = deployment.spec.template.metadata.labels;
  for (const [kind, selector] of [
    ['Service', service.spec.selector],
    ['PodDisruptionBudget', byKind(objects, 'PodDisruptionBudget')[0]?.spec.selector.matchLabels],
    ['NetworkPolicy', byKind(objects, 'NetworkPolicy')[0]?.spec.podSelector.matchLabels],
  ] as const) {
    if (!selector || !selects(selector, podLabels)) problems.push(`${kind}: does not select the Deployment's pods`);
  }
  for (const monitor of byKind(objects, 'ServiceMonitor')) {
    if (!selects(monitor.spec.selector.matchLabels, service.metadata.labels))
      problems.push(`ServiceMonitor ${monitor.metadata.name}: does not select Service hub`);
    for (const e of monitor.spec.endpoints)
      if (!service.spec.ports.some((p: Obj) => p.name === e.port)) problems.push(`ServiceMonitor ${monitor.metadata.name}: Service hub has no port ${e.port}`);
  }
  const hpa = byKind(objects, 'HorizontalPodAutoscaler')[0];
  if (hpa?.spec.scaleTargetRef.name !== deployment.metadata.name) problems.push('HorizontalPodAutoscaler: does not scale Deployment hub');
  if (deployment.spec.replicas !== undefined) problems.push('Deployment hub: sets replicas, which every apply would reset under the HorizontalPodAutoscaler');
  return problems;
}

/**
 * Renders a kustomization made on the spot on top of one of the repository's (a test's seeded mistake, or the
 * next release): `kustomization` gets `resources: [<the overlay>]` added.
 */
export function renderOnTop(overlay: string, kustomization: string): Obj[] {
  const dir = mkdtempSync(join(tmpdir(), 'hub-kustomize-'));
  try {
    // kustomize refuses an absolute path to a base: the overlay as a path relative to the scratch directory.
    const base = relative(dir, join(ROOT, overlay));
    writeFileSync(join(dir, 'kustomization.yaml'), `resources:\n  - ${base}\n${kustomization}`);
    return renderKustomization(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Renders an edited copy of an overlay (a release that changes its tag): its base is found from the copy's place. */
export function renderVariant(overlay: string, edit: (kustomization: string) => string): Obj[] {
  const dir = mkdtempSync(join(tmpdir(), 'hub-kustomize-'));
  try {
    const text = edit(readFileSync(join(ROOT, overlay, 'kustomization.yaml'), 'utf8'));
    writeFileSync(join(dir, 'kustomization.yaml'), text.replace('../../base', relative(dir, join(ROOT, overlay, '../../base'))));
    return renderKustomization(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
