// End-to-end: a realistic application through the real kubectl against one kstore server, the
// way a new user meets a cluster: one multi-document manifest of the kinds an app ships
// (ConfigMap, Secret, ServiceAccount, Role, RoleBinding, Deployment, Service, Ingress,
// HorizontalPodAutoscaler, PodDisruptionBudget, StatefulSet, PersistentVolumeClaim, CronJob,
// NetworkPolicy) applied twice (the second run says unchanged for every object but the PDB, as against kube), applied
// server-side, and deleted with `delete -f`; and the imperative commands: `create
// deployment/job/cronjob/ingress/pdb/priorityclass/quota/service`, `scale`, `set image`,
// `expose`, with `get` printing kube's columns for each kind.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { startKubectlServer } from '../support/kubectl-server.ts';
import type { KubectlServer } from '../support/kubectl-server.ts';
import { parseTable } from '../support/table.ts';

let fixture: KubectlServer | undefined;
const ns = 'shop';

beforeAll(async () => {
  fixture = await startKubectlServer('kstore-e2e-application-', ns);
});

afterAll(async () => {
  await fixture?.stop();
});

function ok(args: readonly string[], input?: string): Promise<string> {
  return fixture!.ok(args, input);
}

const labels = { app: 'shop' };
const podTemplate = {
  metadata: { labels },
  spec: {
    serviceAccountName: 'shop',
    containers: [{
      name: 'web', image: 'nginx:1.27', ports: [{ name: 'http', containerPort: 8080 }],
      envFrom: [{ configMapRef: { name: 'shop-config' } }, { secretRef: { name: 'shop-secret' } }],
      resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '256Mi' } },
      readinessProbe: { httpGet: { path: '/healthz', port: 'http' }, periodSeconds: 5 },
    }],
  },
};

/** The application's objects, in the order a chart would write them. */
const applicationObjects: readonly Record<string, unknown>[] = [
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'shop-config', namespace: ns }, data: { LOG_LEVEL: 'info' } },
    // data, not stringData: a client-side apply of stringData reports "configured" every time, on kube too.
  { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'shop-secret', namespace: ns }, type: 'Opaque', data: { API_KEY: Buffer.from('k').toString('base64') } },
  { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'shop', namespace: ns } },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'shop-reader', namespace: ns }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] }] },
  { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'shop-reader', namespace: ns }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'shop-reader' }, subjects: [{ kind: 'ServiceAccount', name: 'shop', namespace: ns }] },
  { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'shop', namespace: ns, labels }, spec: { replicas: 2, selector: { matchLabels: labels }, template: podTemplate } },
  { apiVersion: 'v1', kind: 'Service', metadata: { name: 'shop', namespace: ns, labels }, spec: { selector: labels, ports: [{ name: 'http', port: 80, targetPort: 'http' }] } },
  {
    apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: 'shop', namespace: ns },
    spec: { rules: [{ host: 'shop.example.com', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'shop', port: { name: 'http' } } } }] } }] },
  },
  {
    apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: { name: 'shop', namespace: ns },
    spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'shop' }, minReplicas: 2, maxReplicas: 10, metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } } }] },
  },
  { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: 'shop', namespace: ns }, spec: { minAvailable: 1, selector: { matchLabels: labels } } },
  {
    apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'shop-db', namespace: ns },
    spec: {
      serviceName: 'shop-db', replicas: 1, selector: { matchLabels: { app: 'shop-db' } },
      template: { metadata: { labels: { app: 'shop-db' } }, spec: { containers: [{ name: 'db', image: 'postgres:16', volumeMounts: [{ name: 'data', mountPath: '/var/lib/postgresql/data' }] }] } },
      volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
    },
  },
  { apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: 'shop-uploads', namespace: ns }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '5Gi' } } } },
  {
    apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'shop-report', namespace: ns },
    spec: { schedule: '0 3 * * *', jobTemplate: { spec: { template: { spec: { restartPolicy: 'OnFailure', containers: [{ name: 'report', image: 'busybox', command: ['sh', '-c', 'date'] }] } } } } },
  },
  {
    apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'shop', namespace: ns },
    // protocol given: kube defaults it inside an atomic list, which kubectl would otherwise patch on every apply.
    spec: { podSelector: { matchLabels: labels }, ingress: [{ from: [{ podSelector: {} }], ports: [{ protocol: 'TCP', port: 8080 }] }] },
  },
];

const applicationManifest = applicationObjects.map((object) => stringify(object)).join('---\n');

/** kubectl's reference for an object in its output ("deployment.apps/shop"). */
function reference(object: Record<string, unknown>): string {
  const apiVersion = String(object['apiVersion']);
  const group = apiVersion.includes('/') ? apiVersion.split('/')[0] : '';
  const kind = String(object['kind']).toLowerCase();
  const name = String((object['metadata'] as { name: string }).name);
  return `${kind}${group === '' ? '' : `.${group}`}/${name}`;
}

function headers(text: string): readonly string[] {
  return parseTable(text).headers;
}

describe('kubectl with a whole application', () => {
  it('apply -f creates every object of the manifest, and a second apply says unchanged for each', async () => {
    const created = await ok(['apply', '-f', '-'], applicationManifest);
    for (const object of applicationObjects) expect(created).toContain(`${reference(object)} created`);
    const again = await ok(['apply', '-f', '-'], applicationManifest);
    for (const object of applicationObjects) {
      // A PDB's spec.selector has patch strategy "replace": kubectl's three-way patch always
      // carries it, so kubectl says "configured" against kube-apiserver too; nothing changes.
      const word = object['kind'] === 'PodDisruptionBudget' ? 'configured' : 'unchanged';
      expect(again).toContain(`${reference(object)} ${word}`);
    }
    expect(await ok(['get', 'pdb', 'shop', '-n', ns, '-o', 'jsonpath={.metadata.generation}'])).toBe('1');
  });

  it('get prints kube\'s columns for each kind of the application', async () => {
    expect(headers(await ok(['get', 'deployments', '-n', ns]))).toEqual(['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE']);
    expect(headers(await ok(['get', 'statefulsets', '-n', ns]))).toEqual(['NAME', 'READY', 'AGE']);
    expect(headers(await ok(['get', 'ingress', '-n', ns]))).toEqual(['NAME', 'CLASS', 'HOSTS', 'ADDRESS', 'PORTS', 'AGE']);
    expect(parseTable(await ok(['get', 'ingress', 'shop', '-n', ns])).rows[0]).toMatchObject({ NAME: 'shop', CLASS: '<none>', HOSTS: 'shop.example.com', PORTS: '80' });
    expect(headers(await ok(['get', 'hpa', '-n', ns]))).toEqual(['NAME', 'REFERENCE', 'TARGETS', 'MINPODS', 'MAXPODS', 'REPLICAS', 'AGE']);
    expect(parseTable(await ok(['get', 'hpa', 'shop', '-n', ns])).rows[0]).toMatchObject({ NAME: 'shop', REFERENCE: 'Deployment/shop', MINPODS: '2', MAXPODS: '10' });
    expect(headers(await ok(['get', 'pdb', '-n', ns]))).toEqual(['NAME', 'MIN', 'AVAILABLE', 'MAX', 'UNAVAILABLE', 'ALLOWED', 'DISRUPTIONS', 'AGE']);
    expect(headers(await ok(['get', 'cronjobs', '-n', ns]))).toEqual(['NAME', 'SCHEDULE', 'TIMEZONE', 'SUSPEND', 'ACTIVE', 'LAST', 'SCHEDULE', 'AGE']);
    expect(headers(await ok(['get', 'pvc', '-n', ns]))).toEqual(['NAME', 'STATUS', 'VOLUME', 'CAPACITY', 'ACCESS', 'MODES', 'STORAGECLASS', 'VOLUMEATTRIBUTESCLASS', 'AGE']);
    expect(parseTable(await ok(['get', 'pvc', 'shop-uploads', '-n', ns])).rows[0]).toMatchObject({ NAME: 'shop-uploads', STATUS: 'Pending' });
    expect(headers(await ok(['get', 'networkpolicies', '-n', ns]))).toEqual(['NAME', 'POD-SELECTOR', 'AGE']);
  });

  it('apply --server-side takes over the same manifest and applies a change', async () => {
    const applied = await ok(['apply', '--server-side', '--force-conflicts', '-f', '-'], applicationManifest);
    for (const object of applicationObjects) expect(applied).toContain(`${reference(object)} serverside-applied`);
    const changed = applicationManifest.replace('maxReplicas: 10', 'maxReplicas: 12');
    await ok(['apply', '--server-side', '--force-conflicts', '-f', '-'], changed);
    expect(await ok(['get', 'hpa', 'shop', '-n', ns, '-o', 'jsonpath={.spec.maxReplicas}'])).toBe('12');
  });

  it('delete -f removes every object of the manifest', async () => {
    const deleted = await ok(['delete', '-f', '-'], applicationManifest);
    for (const object of applicationObjects) {
      const kind = String(object['kind']).toLowerCase();
      const name = String((object['metadata'] as { name: string }).name);
      expect(deleted).toMatch(new RegExp(`${kind}[a-z0-9.]*\\s*"${name}" deleted`));
    }
    for (const resource of ['deployments', 'statefulsets', 'ingresses', 'hpa', 'pdb', 'cronjobs', 'networkpolicies', 'services', 'configmaps']) {
      const left = (await ok(['get', resource, '-n', ns, '-o', 'name'])).split('\n').filter((line) => line.includes('shop'));
      expect(left, resource).toEqual([]);
    }
  });
});

describe('kubectl imperative commands', () => {
  it('create deployment, scale, set image and expose', async () => {
    expect(await ok(['create', 'deployment', 'web', '--image=nginx', '--port=80', '-n', ns])).toContain('deployment.apps/web created');
    expect(await ok(['scale', 'deployment/web', '--replicas=4', '-n', ns])).toContain('deployment.apps/web scaled');
    expect(await ok(['set', 'image', 'deployment/web', 'nginx=nginx:1.28', '-n', ns])).toContain('deployment.apps/web image updated');
    expect(await ok(['expose', 'deployment', 'web', '--port=8080', '--target-port=80', '-n', ns])).toContain('service/web exposed');
    const service = parse(await ok(['get', 'service', 'web', '-n', ns, '-o', 'yaml'])) as { spec: { selector: Record<string, string>; ports: { port: number; targetPort: number }[]; type: string } };
    expect(service.spec.selector).toEqual({ app: 'web' });
    expect(service.spec.ports[0]).toMatchObject({ port: 8080, targetPort: 80 });
    expect(service.spec.type).toBe('ClusterIP');
    expect(headers(await ok(['get', 'services', '-n', ns]))).toEqual(['NAME', 'TYPE', 'CLUSTER-IP', 'EXTERNAL-IP', 'PORT(S)', 'AGE']);
    expect(await ok(['get', 'deployment', 'web', '-n', ns, '-o', 'jsonpath={.spec.replicas} {.spec.template.spec.containers[0].image}'])).toBe('4 nginx:1.28');
  });

  it('create service clusterip', async () => {
    expect(await ok(['create', 'service', 'clusterip', 'cache', '--tcp=6379:6379', '-n', ns])).toContain('service/cache created');
    expect(parseTable(await ok(['get', 'service', 'cache', '-n', ns])).rows[0]).toMatchObject({ NAME: 'cache', TYPE: 'ClusterIP', 'PORT(S)': '6379/TCP' });
  });

  it('create job makes a Job with the generated selector and kube\'s labels', async () => {
    expect(await ok(['create', 'job', 'once', '--image=busybox', '-n', ns, '--', 'date'])).toContain('job.batch/once created');
    const job = parse(await ok(['get', 'job', 'once', '-n', ns, '-o', 'yaml'])) as { metadata: { uid: string }; spec: { selector: { matchLabels: Record<string, string> }; template: { metadata: { labels: Record<string, string> } }; backoffLimit: number } };
    expect(job.spec.selector.matchLabels).toEqual({ 'batch.kubernetes.io/controller-uid': job.metadata.uid });
    expect(job.spec.template.metadata.labels).toMatchObject({ 'batch.kubernetes.io/job-name': 'once', 'job-name': 'once', 'batch.kubernetes.io/controller-uid': job.metadata.uid });
    expect(job.spec.backoffLimit).toBe(6);
    expect(headers(await ok(['get', 'jobs', '-n', ns]))).toEqual(['NAME', 'STATUS', 'COMPLETIONS', 'DURATION', 'AGE']);
  });

  it('create cronjob validates the schedule', async () => {
    expect(await ok(['create', 'cronjob', 'nightly', '--image=busybox', '--schedule=*/5 * * * *', '-n', ns, '--', 'date'])).toContain('cronjob.batch/nightly created');
    // "LAST SCHEDULE" splits into two headers, one named like SCHEDULE: read the schedule by path.
    expect(parseTable(await ok(['get', 'cronjob', 'nightly', '-n', ns])).rows[0]).toMatchObject({ NAME: 'nightly', SUSPEND: 'False', ACTIVE: '0' });
    expect(await ok(['get', 'cronjob', 'nightly', '-n', ns, '-o', 'jsonpath={.spec.schedule} {.spec.concurrencyPolicy}'])).toBe('*/5 * * * * Allow');
    const bad = await fixture!.kubectl.run(['create', 'cronjob', 'broken', '--image=busybox', '--schedule=61 * * * *', '-n', ns]);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('spec.schedule');
  });

  it('create ingress, pdb, priorityclass and quota', async () => {
    expect(await ok(['create', 'ingress', 'site', '--rule=site.example.com/*=web:8080', '-n', ns])).toContain('ingress.networking.k8s.io/site created');
    expect(parseTable(await ok(['get', 'ing', 'site', '-n', ns])).rows[0]).toMatchObject({ NAME: 'site', HOSTS: 'site.example.com', PORTS: '80' });
    expect(await ok(['create', 'pdb', 'web', '--selector=app=web', '--min-available=50%', '-n', ns])).toContain('poddisruptionbudget.policy/web created');
    expect(parseTable(await ok(['get', 'pdb', 'web', '-n', ns])).rows[0]).toMatchObject({ NAME: 'web', MIN: '50%', MAX: 'N/A' });
    expect(await ok(['create', 'priorityclass', 'batch-low', '--value=100', '--description=low'])).toContain('priorityclass.scheduling.k8s.io/batch-low created');
    const classes = parseTable(await ok(['get', 'priorityclasses']));
    expect(classes.headers).toEqual(['NAME', 'VALUE', 'GLOBAL-DEFAULT', 'AGE', 'PREEMPTIONPOLICY']);
    expect(classes.rows.map((row) => row['NAME'])).toEqual(expect.arrayContaining(['batch-low', 'system-cluster-critical', 'system-node-critical']));
    expect(await ok(['create', 'quota', 'compute', '--hard=pods=10,requests.cpu=4', '-n', ns])).toContain('resourcequota/compute created');
    // No quota controller fills status.used yet: the REQUEST cell stays empty.
    expect(headers(await ok(['get', 'quota', 'compute', '-n', ns]))).toEqual(['NAME', 'AGE', 'REQUEST', 'LIMIT']);
    expect(await ok(['get', 'quota', 'compute', '-n', ns, '-o', 'jsonpath={.spec.hard.pods}'])).toBe('10');
  });

  it('explain reaches the template\'s container resources', async () => {
    const text = await ok(['explain', 'deployment.spec.template.spec.containers.resources']);
    expect(text).toMatch(/FIELD:\s+resources <ResourceRequirements>/);
    expect(text).toMatch(/limits\s+<map\[string\]Quantity>/);
  });
});
