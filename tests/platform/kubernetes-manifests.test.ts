import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';

/*
 * deploy/k8s: every overlay rendered by kustomize (kubectl's own) and every object it makes
 * validated against the Kubernetes API's JSON schemas, offline (kubernetes-models; CloudNativePG's
 * Cluster against its CRD's schema), and what the docs promise of them checked.
 */

const ROOT = path.resolve(import.meta.dirname, '../..');
const OVERLAYS = ['trial', 'production'] as const;
const PROCESSES = ['gateway', 'sales', 'purchase', 'finance', 'accounting', 'settings'];
type Obj = { apiVersion: string; kind: string; metadata: { name: string; namespace?: string }; spec?: any; data?: Record<string, string> };

function render(overlay: string): Obj[] {
  const text = execFileSync('kubectl', ['kustomize', path.join(ROOT, 'deploy/k8s/overlays', overlay)], { encoding: 'utf8' });
  return parseAllDocuments(text).map((d) => d.toJSON() as Obj);
}

/** The model class of an object's kind: `kubernetes-models/<group>/<version>/<Kind>`, or a CRD package's. */
async function modelOf(obj: Obj): Promise<new (data: unknown) => { validate(): void }> {
  const [group, version] = obj.apiVersion.includes('/') ? obj.apiVersion.split('/') : ['', obj.apiVersion];
  const module = group === 'postgresql.cnpg.io' ? `@kubernetes-models/cloudnative-pg/${group}/${version}/${obj.kind}` : `kubernetes-models/${group ? `${group}/` : ''}${version}/${obj.kind}`;
  const loaded = await import(module);
  return loaded[obj.kind] ?? loaded.default;
}

const byKind = (objs: Obj[], kind: string) => objs.filter((o) => o.kind === kind);

describe.each(OVERLAYS)('the %s overlay', (overlay) => {
  const objects = render(overlay);

  it('renders objects that are valid against the Kubernetes schemas', async () => {
    expect(objects.length).toBeGreaterThan(20);
    const invalid: string[] = [];
    for (const obj of objects) {
      const Model = await modelOf(obj);
      try {
        new Model(obj).validate();
      } catch (err) {
        invalid.push(`${obj.kind}/${obj.metadata.name}: ${String(err)}`);
      }
    }
    expect(invalid).toEqual([]);
  });

  it('a model refuses what the API server would: the test can fail', async () => {
    const deployment = structuredClone(byKind(objects, 'Deployment')[0]);
    deployment.spec.replicas = 'two';
    const Model = await modelOf(deployment);
    expect(() => new Model(deployment).validate()).toThrow();
  });

  it('gives every process a Deployment probed on /readyz and /healthz with requests and limits, a Service, an autoscaler and a disruption budget', () => {
    for (const name of PROCESSES) {
      const [deployment] = byKind(objects, 'Deployment').filter((d) => d.metadata.name === name);
      const container = deployment.spec.template.spec.containers[0];
      expect(container.readinessProbe.httpGet.path).toBe('/readyz');
      // the process bounds each readiness check to 2 s: the prober waits longer than that
      expect(container.readinessProbe.timeoutSeconds).toBeGreaterThan(2);
      expect(container.livenessProbe.httpGet.path).toBe('/healthz');
      expect(container.resources.requests.memory).toBeDefined();
      expect(container.resources.limits.memory).toBeDefined();
      expect(deployment.spec.template.spec.securityContext.runAsNonRoot).toBe(true);
      expect(deployment.spec.template.spec.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(30);
      expect(deployment.metadata.namespace).toBe(overlay === 'trial' ? 'ledgerline-trial' : 'ledgerline');
      const port = container.ports[0].containerPort;
      expect(byKind(objects, 'Service').find((s) => s.metadata.name === name)!.spec.ports[0].port).toBe(port);
      expect(byKind(objects, 'HorizontalPodAutoscaler').find((h) => h.metadata.name === name)!.spec.scaleTargetRef.name).toBe(name);
      expect(byKind(objects, 'PodDisruptionBudget').find((p) => p.metadata.name === name)).toBeDefined();
      // the secrets are references, never values in the manifests
      const secretEnv = container.env.filter((e: any) => /TOKEN|KEY|DATABASE_URL/.test(e.name));
      for (const e of secretEnv) expect(e.valueFrom?.secretKeyRef, e.name).toBeDefined();
    }
    expect(byKind(objects, 'Ingress')[0].spec.rules[0].http.paths[0].backend.service.name).toBe('gateway');
    const [cluster] = byKind(objects, 'Cluster');
    expect(cluster.spec.instances).toBe(overlay === 'trial' ? 1 : 3);
    // production: a commit waits for a standby (a failover loses nothing acknowledged); a trial has none to wait for
    expect(cluster.spec.postgresql.synchronous).toEqual(overlay === 'trial' ? undefined : { method: 'any', number: 1 });
    // WAL archived continuously and a nightly base backup: point-in-time recovery
    expect(cluster.spec.backup.barmanObjectStore.wal).toBeDefined();
    expect(byKind(objects, 'ScheduledBackup')[0].spec.cluster.name).toBe(cluster.metadata.name);
  });
});

describe('the NATS Helm values', () => {
  it('make a 3-node JetStream cluster for production and one JetStream server for a trial', () => {
    const production = parse(readFileSync(path.join(ROOT, 'deploy/k8s/nats/values.yaml'), 'utf8'));
    expect(production.config.cluster).toMatchObject({ enabled: true, replicas: 3 });
    expect(production.config.jetstream.enabled).toBe(true);
    const trial = parse(readFileSync(path.join(ROOT, 'deploy/k8s/nats/values-trial.yaml'), 'utf8'));
    expect(trial.config.cluster.enabled).toBe(false);
    expect(trial.config.jetstream.enabled).toBe(true);
    // the streams are replicated as many times as the cluster has servers
    const config = byKind(render('production'), 'ConfigMap')[0];
    expect(config.data!.NATS_STREAM_REPLICAS).toBe(String(production.config.cluster.replicas));
  });
});
