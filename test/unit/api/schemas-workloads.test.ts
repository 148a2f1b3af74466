// The complete v1 schemas of pods, nodes, services, endpoints and events: every field of the
// protobuf messages (api/codecs, built from the generated descriptions) has a schema property of
// the matching type and the other way round, so the two cannot drift; over HTTP, fieldValidation reports unknown fields at any depth
// (Strict: one 400 listing all, Warn: one Warning each and the object stored without them,
// Ignore: dropped silently), a wrong type deep inside is a 400, a realistic pod passes Strict
// with no warning, and the OpenAPI documents carry the deep schema with kube's extensions.
import protobuf from 'protobufjs';
import type { Type } from 'protobufjs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { builtMessageType, fieldJsonFacts } from '../../../api/codecs/protobuf-messages.ts';
import { openApiV2Document, openApiV3Document } from '../../../api/openapi.ts';
import { servedKinds } from '../../../api/registry/kinds.ts';
import type { JsonSchema } from '../../../api/registry/schemas.ts';
import { schemaOfKind } from '../../../api/registry/schema-from-description.ts';
import { startHarness } from './harness.ts';
import type { Harness } from './harness.ts';

// --- the schemas against the protobuf messages ---

const quantityMessage = 'k8s.io.apimachinery.pkg.api.resource.Quantity';
const intOrStringMessage = 'k8s.io.apimachinery.pkg.util.intstr.IntOrString';
const timeMessage = 'k8s.io.apimachinery.pkg.apis.meta.v1.Time';
const microTimeMessage = 'k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime';
const objectMetaMessage = 'k8s.io.apimachinery.pkg.apis.meta.v1.ObjectMeta';
const scalarCheck: Record<string, (schema: JsonSchema) => boolean> = {
  string: (schema) => schema.type === 'string' && schema.format === undefined,
  int32: (schema) => schema.type === 'integer' && schema.format === 'int32',
  int64: (schema) => schema.type === 'integer' && schema.format === 'int64',
  bool: (schema) => schema.type === 'boolean',
  double: (schema) => schema.type === 'number',
  bytes: (schema) => schema.type === 'string' && schema.format === 'byte',
};
const specialCheck: Record<string, (schema: JsonSchema) => boolean> = {
  [quantityMessage]: (schema) => JSON.stringify(schema.type) === '["number","string"]',
  [intOrStringMessage]: (schema) => JSON.stringify(schema.type) === '["integer","string"]',
  [timeMessage]: (schema) => schema.format === 'date-time-or-empty',
  [microTimeMessage]: (schema) => schema.format === 'date-time-or-empty',
};

const fullName = (type: Type): string => type.fullName.slice(1);

/** The JSON fields of a message: its own, with inlined (Go embedded) messages' fields in place. */
function jsonFields(type: Type): { name: string; field: protobuf.Field }[] {
  return type.fieldsArray.flatMap((field) => {
    const facts = fieldJsonFacts(field);
    if (facts.inline && field.resolvedType instanceof protobuf.Type) return jsonFields(field.resolvedType);
    return facts.json === undefined ? [] : [{ name: facts.json, field }];
  });
}

/** Every mismatch between a message and a schema node, as `path: problem`. */
function mismatches(type: Type, schema: JsonSchema, path: string, seen: Set<string>, top = false): string[] {
  const problems: string[] = [];
  const properties = schema.properties ?? {};
  if (schema.additionalProperties !== false) problems.push(`${path}: not closed (additionalProperties: false)`);
  const fields = jsonFields(type);
  for (const name of Object.keys(properties)) {
    if (!fields.some((field) => field.name === name) && !(top && (name === 'apiVersion' || name === 'kind'))) {
      problems.push(`${path}.${name}: in the schema, not in ${fullName(type)}`);
    }
  }
  for (const { name, field } of fields) {
    const property = properties[name];
    const at = `${path}.${name}`;
    if (property === undefined) {
      problems.push(`${at}: in ${fullName(type)}, not in the schema`);
      continue;
    }
    let element: JsonSchema | undefined = property;
    if (field.map) element = typeof property.additionalProperties === 'object' ? property.additionalProperties : undefined;
    else if (field.repeated) element = property.type === 'array' ? property.items : undefined;
    if (element === undefined) {
      problems.push(`${at}: expected a ${field.map ? 'map' : 'list'}`);
      continue;
    }
    const resolved = field.resolvedType;
    if (resolved instanceof protobuf.Type) {
      const messageName = fullName(resolved);
      // Published in OpenAPI under kube's definition name (k8s.io.api.core.v1.Probe → io.k8s.api.core.v1.Probe).
      const definition = `io.k8s.${messageName.slice('k8s.io.'.length)}`;
      if (element.definition !== definition) problems.push(`${at}: named ${String(element.definition)}, not ${definition}`);
      const special = specialCheck[messageName];
      if (special !== undefined) {
        if (!special(element)) problems.push(`${at}: not the schema of ${messageName}`);
      } else if (messageName === objectMetaMessage) {
        if (element.properties?.['name'] === undefined) problems.push(`${at}: not ObjectMeta`);
      } else {
        const key = `${messageName}@${at}`;
        if (!seen.has(key)) problems.push(...mismatches(resolved, element, at, new Set([...seen, key])));
      }
    } else {
      const check = scalarCheck[field.type];
      if (check === undefined || !check(element)) problems.push(`${at}: ${JSON.stringify(element)} is not a ${field.type}`);
    }
  }
  return problems;
}

describe('the served schemas list exactly the fields of the protobuf messages', () => {
  const core = 'k8s.io.api.core.v1';
  const served = (group: string, kind: string): JsonSchema => {
    const found = servedKinds.find((entry) => entry.group === group && entry.kind === kind);
    if (found === undefined) throw new Error(`${kind} is not served`);
    return found.schema;
  };
  it.each([
    ['Pod', `${core}.Pod`, served('', 'Pod')],
    ['Node', `${core}.Node`, served('', 'Node')],
    ['Service', `${core}.Service`, served('', 'Service')],
    ['Endpoints', `${core}.Endpoints`, served('', 'Endpoints')],
    ['Binding', `${core}.Binding`, schemaOfKind(`${core}.Binding`)],
    ['core/v1 Event', `${core}.Event`, served('', 'Event')],
    ['events.k8s.io/v1 Event', 'k8s.io.api.events.v1.Event', served('events.k8s.io', 'Event')],
  ] as const)('%s', (kind, message, schema) => {
    expect(mismatches(builtMessageType(message), schema, kind, new Set(), true)).toEqual([]);
  });
});

// --- over HTTP ---

let harness: Harness;
beforeEach(async () => {
  harness = await startHarness();
});
afterEach(async () => {
  await harness.close();
});

const pods = '/api/v1/namespaces/t/pods';

function pod(name: string, spec: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name }, spec, ...extra };
}

/** A pod with a typo at five depths: probe, volume source, affinity term, securityContext, status condition. */
function typoPod(name: string) {
  return pod(name, {
    containers: [{
      name: 'web', image: 'nginx', livenessProbe: { httpGett: { path: '/', port: 80 }, periodSeconds: 10 },
      securityContext: { runAsUsr: 1000, capabilities: { drop: ['ALL'] } },
    }],
    volumes: [{ name: 'cfg', configMap: { name: 'c', itemz: [] } }],
    affinity: {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'], valuez: ['b'] }] }],
        },
      },
    },
  }, { status: { conditions: [{ type: 'Ready', status: 'True', lastProbeTimes: null }] } });
}

const typoFields = [
  'spec.containers[0].livenessProbe.httpGett',
  'spec.containers[0].securityContext.runAsUsr',
  'spec.volumes[0].configMap.itemz',
  'spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].valuez',
  'status.conditions[0].lastProbeTimes',
];

function warnings(header: string | string[] | number | undefined): string[] {
  return (Array.isArray(header) ? header : header === undefined ? [] : [String(header)]);
}

describe('fieldValidation at any depth', () => {
  it('Strict: one 400 listing every unknown field in kube\'s strict decoding wording', async () => {
    const response = await harness.request('POST', `${pods}?fieldValidation=Strict`, typoPod('p'));
    expect(response.statusCode).toBe(400);
    const status = response.json();
    expect(status).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'BadRequest', code: 400 });
    // In document order, as kube's strict decoder meets them.
    expect(status.message).toBe(`Pod in version "v1" cannot be handled as a Pod: strict decoding error: ${typoFields.map((field) => `unknown field "${field}"`).join(', ')}`);
    expect((await harness.request('GET', `${pods}/p`)).statusCode).toBe(404);
  });

  it('Warn (the default): one Warning header per field, stored without them', async () => {
    const response = await harness.request('POST', pods, typoPod('p'));
    expect(response.statusCode, response.body).toBe(201);
    const headers = warnings(response.headers['warning']);
    expect(headers).toHaveLength(typoFields.length);
    for (const field of typoFields) expect(headers).toContain(`299 - ${JSON.stringify(`unknown field "${field}"`)}`);
    const stored = (await harness.request('GET', `${pods}/p`)).json();
    const container = stored.spec.containers[0];
    expect(container.livenessProbe).toEqual({ periodSeconds: 10, timeoutSeconds: 1, successThreshold: 1, failureThreshold: 3 });
    expect(container.securityContext).toEqual({ capabilities: { drop: ['ALL'] } });
    expect(stored.spec.volumes.find((volume: { name: string }) => volume.name === 'cfg').configMap).toEqual({ name: 'c', defaultMode: 420 });
    expect(stored.spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0])
      .toEqual({ key: 'zone', operator: 'In', values: ['a'] });
  });

  it('Ignore: dropped silently', async () => {
    const response = await harness.request('POST', `${pods}?fieldValidation=Ignore`, typoPod('p'));
    expect(response.statusCode, response.body).toBe(201);
    expect(response.headers['warning']).toBeUndefined();
    expect(JSON.stringify(response.json())).not.toMatch(/httpGett|runAsUsr|itemz|valuez|lastProbeTimes/);
  });

  it('Strict on a status update reports an unknown field in a container state', async () => {
    expect((await harness.request('POST', pods, pod('p', { containers: [{ name: 'web', image: 'nginx' }] }))).statusCode).toBe(201);
    const current = (await harness.request('GET', `${pods}/p`)).json();
    const response = await harness.request('PUT', `${pods}/p/status?fieldValidation=Strict`, {
      ...current,
      status: { phase: 'Running', containerStatuses: [{ name: 'web', ready: true, restartCount: 0, image: 'nginx', imageID: '', state: { running: { startedAt: '2026-01-01T00:00:00Z', pid: 1 } } }] },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().message).toBe('Pod in version "v1" cannot be handled as a Pod: strict decoding error: unknown field "status.containerStatuses[0].state.running.pid"');
  });

  it('a known field set to null is absent, as Go decodes it (also under Strict); a nullable time keeps its null', async () => {
    const response = await harness.request('POST', `${pods}?fieldValidation=Strict`, pod('p', {
      affinity: null, nodeSelector: null, tolerations: null,
      containers: [{ name: 'web', image: 'nginx', resources: { limits: null }, securityContext: { seLinuxOptions: null, runAsUser: 1 }, livenessProbe: { httpGet: { path: '/', port: 80, httpHeaders: null } } }],
    }));
    expect(response.statusCode, response.body).toBe(201);
    expect(response.headers['warning']).toBeUndefined();
    const created = response.json();
    expect(created.spec.affinity).toBeUndefined();
    expect(created.spec.containers[0].securityContext).toEqual({ runAsUser: 1 });
    expect(created.spec.containers[0].livenessProbe.httpGet).toEqual({ path: '/', port: 80, scheme: 'HTTP' });
    const status = await harness.request('PUT', `${pods}/p/status?fieldValidation=Strict`, {
      ...created, status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', lastProbeTime: null, reason: null }] },
    });
    expect(status.statusCode, status.body).toBe(200);
    expect(status.json().status.conditions).toEqual([{ type: 'PodScheduled', status: 'False', lastProbeTime: null }]);
  });

  it.each([
    ['a string for an int32', { livenessProbe: { periodSeconds: 'ten' } }, 'spec.containers[0].livenessProbe.periodSeconds'],
    ['an object for a string', { securityContext: { seccompProfile: { type: { name: 'x' } } } }, 'spec.containers[0].securityContext.seccompProfile.type'],
    ['a string for a list', { env: [{ name: 'A', valueFrom: { configMapKeyRef: { name: 'c', key: 'k', optional: 'yes' } } }] }, 'spec.containers[0].env[0].valueFrom.configMapKeyRef.optional'],
    ['an int32 out of range', { ports: [{ containerPort: 2 ** 31 }] }, 'spec.containers[0].ports[0].containerPort'],
  ])('a wrong type deep inside is a 400 naming the field: %s', async (_what, fields, path) => {
    const response = await harness.request('POST', `${pods}?fieldValidation=Ignore`, pod('p', { containers: [{ name: 'web', image: 'nginx', ...fields }] }));
    expect(response.statusCode).toBe(400);
    expect(response.json().message).toMatch(/^Pod in version "v1" cannot be handled as a Pod: /);
    expect(response.json().message).toContain(`${path}: `);
  });

  it('a boolean for a quantity is a 400 with resource.Quantity\'s own message (its unmarshaler names no field)', async () => {
    const response = await harness.request('POST', `${pods}?fieldValidation=Ignore`, pod('p', { containers: [{ name: 'web', image: 'nginx', resources: { limits: { cpu: true } } }] }));
    expect(response.statusCode).toBe(400);
    expect(response.json().message).toBe(`Pod in version "v1" cannot be handled as a Pod: quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'`);
  });
});

/** What `kubectl run` and a Deployment-style template write, with every commonly used field. */
function realisticPod(name: string) {
  const probe = (path: string) => ({
    httpGet: { path, port: 'http', scheme: 'HTTP', httpHeaders: [{ name: 'X-Probe', value: '1' }] },
    initialDelaySeconds: 5, timeoutSeconds: 2, periodSeconds: 10, successThreshold: 1, failureThreshold: 3,
  });
  return {
    apiVersion: 'v1', kind: 'Pod',
    metadata: {
      name, creationTimestamp: null, labels: { app: 'web', 'app.kubernetes.io/name': 'web' },
      annotations: { 'kubectl.kubernetes.io/default-container': 'web' },
    },
    spec: {
      initContainers: [{
        name: 'init', image: 'busybox:1.36', command: ['sh', '-c', 'echo ready > /work/ready'],
        volumeMounts: [{ name: 'work', mountPath: '/work' }], resources: {},
      }, {
        name: 'sidecar', image: 'envoy:v1', restartPolicy: 'Always',
        startupProbe: { tcpSocket: { port: 9901 }, failureThreshold: 30, periodSeconds: 1 },
      }],
      containers: [{
        name: 'web', image: 'nginx:1.27', imagePullPolicy: 'IfNotPresent', args: ['--port', '8080'], workingDir: '/srv',
        ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }, { name: 'metrics', containerPort: 9090, hostPort: 19090, hostIP: '0.0.0.0' }],
        env: [
          { name: 'MODE', value: 'prod' },
          { name: 'POD_NAME', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } },
          { name: 'CPU_LIMIT', valueFrom: { resourceFieldRef: { containerName: 'web', resource: 'limits.cpu', divisor: '1m' } } },
          { name: 'LEVEL', valueFrom: { configMapKeyRef: { name: 'settings', key: 'level', optional: true } } },
          { name: 'TOKEN', valueFrom: { secretKeyRef: { name: 'creds', key: 'token' } } },
        ],
        envFrom: [{ configMapRef: { name: 'settings' } }, { prefix: 'DB_', secretRef: { name: 'db', optional: true } }],
        resources: { requests: { cpu: '250m', memory: '128Mi' }, limits: { cpu: 0.5, memory: 268435456, 'ephemeral-storage': '1Gi' } },
        resizePolicy: [{ resourceName: 'cpu', restartPolicy: 'NotRequired' }],
        volumeMounts: [
          { name: 'work', mountPath: '/work' }, { name: 'cfg', mountPath: '/etc/web', readOnly: true },
          { name: 'secret', mountPath: '/etc/secret', subPath: 'tls', mountPropagation: 'None' },
        ],
        livenessProbe: probe('/healthz'), readinessProbe: probe('/ready'),
        startupProbe: { exec: { command: ['cat', '/work/ready'] }, failureThreshold: 30, periodSeconds: 2, terminationGracePeriodSeconds: 10 },
        lifecycle: { postStart: { exec: { command: ['sh', '-c', 'true'] } }, preStop: { sleep: { seconds: 5 } } },
        securityContext: {
          allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, runAsNonRoot: true, runAsUser: 101, runAsGroup: 101,
          capabilities: { drop: ['ALL'], add: ['NET_BIND_SERVICE'] }, seccompProfile: { type: 'RuntimeDefault' },
        },
        terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'FallbackToLogsOnError', stdin: false, tty: false,
      }],
      volumes: [
        { name: 'work', emptyDir: { medium: 'Memory', sizeLimit: '64Mi' } },
        { name: 'cfg', configMap: { name: 'settings', items: [{ key: 'nginx.conf', path: 'nginx.conf', mode: 0o644 }], defaultMode: 0o444, optional: true } },
        { name: 'secret', secret: { secretName: 'tls', defaultMode: 0o400 } },
        { name: 'data', persistentVolumeClaim: { claimName: 'data', readOnly: false } },
        { name: 'host', hostPath: { path: '/var/log', type: 'Directory' } },
        { name: 'info', downwardAPI: { items: [{ path: 'labels', fieldRef: { fieldPath: 'metadata.labels' } }] } },
        {
          name: 'bundle', projected: {
            defaultMode: 0o420,
            sources: [
              { serviceAccountToken: { audience: 'vault', expirationSeconds: 3600, path: 'token' } },
              { configMap: { name: 'ca', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
              { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
            ],
          },
        },
        { name: 'scratch', ephemeral: { volumeClaimTemplate: { metadata: { labels: { type: 'scratch' } }, spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'fast', resources: { requests: { storage: '1Gi' } } } } } },
        { name: 'csi', csi: { driver: 'secrets-store.csi.k8s.io', readOnly: true, volumeAttributes: { secretProviderClass: 'vault' } } },
      ],
      restartPolicy: 'Always', terminationGracePeriodSeconds: 45, dnsPolicy: 'ClusterFirst',
      nodeSelector: { 'kubernetes.io/os': 'linux' }, serviceAccountName: 'default', automountServiceAccountToken: true,
      securityContext: {
        runAsNonRoot: true, fsGroup: 101, fsGroupChangePolicy: 'OnRootMismatch', supplementalGroups: [1000],
        seccompProfile: { type: 'RuntimeDefault' }, sysctls: [{ name: 'net.core.somaxconn', value: '1024' }],
      },
      imagePullSecrets: [{ name: 'registry' }],
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/arch', operator: 'In', values: ['amd64', 'arm64'] }] }] },
          preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 50, preference: { matchExpressions: [{ key: 'disk', operator: 'Exists' }] } }],
        },
        podAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 10, podAffinityTerm: { labelSelector: { matchLabels: { app: 'cache' } }, topologyKey: 'kubernetes.io/hostname' } }],
        },
        podAntiAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [{
            labelSelector: { matchExpressions: [{ key: 'app', operator: 'In', values: ['web'] }] }, topologyKey: 'topology.kubernetes.io/zone',
            namespaceSelector: {}, matchLabelKeys: ['pod-template-hash'],
          }],
        },
      },
      tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'web', effect: 'NoSchedule' }, { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 60 }],
      topologySpreadConstraints: [{ maxSkew: 1, topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'ScheduleAnyway', labelSelector: { matchLabels: { app: 'web' } }, minDomains: 2, nodeAffinityPolicy: 'Honor', nodeTaintsPolicy: 'Ignore', matchLabelKeys: ['pod-template-hash'] }],
      hostAliases: [{ ip: '10.0.0.10', hostnames: ['db.local'] }],
      dnsConfig: { nameservers: ['1.1.1.1'], searches: ['svc.cluster.local'], options: [{ name: 'ndots', value: '2' }, { name: 'edns0' }] },
      readinessGates: [{ conditionType: 'example.com/ready' }],
      priorityClassName: '', enableServiceLinks: false, preemptionPolicy: 'PreemptLowerPriority', setHostnameAsFQDN: false,
      hostname: 'web-0', subdomain: 'web', os: { name: 'linux' }, hostUsers: true, shareProcessNamespace: false,
      schedulingGates: [], runtimeClassName: 'runc', schedulerName: 'default-scheduler',
    },
    status: {},
  };
}

describe('a realistic pod', () => {
  it('passes Strict with no warning and keeps every field', async () => {
    const body = realisticPod('web-0');
    const response = await harness.request('POST', `${pods}?fieldValidation=Strict`, body);
    expect(response.statusCode, response.body).toBe(201);
    expect(response.headers['warning']).toBeUndefined();
    const created = response.json();
    expect(created.spec.affinity).toEqual(body.spec.affinity);
    expect(created.spec.topologySpreadConstraints).toEqual(body.spec.topologySpreadConstraints);
    expect(created.spec.containers[0].securityContext).toEqual(body.spec.containers[0]!.securityContext);
    // Quantities come back in their canonical form, as kube stores them (0.5 → "500m").
    expect(created.spec.containers[0].resources).toEqual({
      limits: { cpu: '500m', 'ephemeral-storage': '1Gi', memory: '268435456' },
      requests: { cpu: '250m', memory: '128Mi' },
    });
    expect(created.spec.containers[0].lifecycle).toEqual(body.spec.containers[0]!.lifecycle);
    expect(created.spec.volumes).toEqual(expect.arrayContaining([expect.objectContaining(body.spec.volumes[7]!)]));
    // A strategic merge patch of the stored pod under Strict: still no warning.
    const patched = await harness.request('PATCH', `${pods}/web-0?fieldValidation=Strict`,
      JSON.stringify({ spec: { containers: [{ name: 'web', image: 'nginx:1.28' }] } }), { 'content-type': 'application/strategic-merge-patch+json' });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.headers['warning']).toBeUndefined();
    expect(patched.json().spec.containers[0].livenessProbe).toEqual(created.spec.containers[0].livenessProbe);
  });

  it('a full status (conditions, container states, pod and host IPs, resource claims) passes Strict through pods/status', async () => {
    expect((await harness.request('POST', pods, pod('p', { containers: [{ name: 'web', image: 'nginx' }] }))).statusCode).toBe(201);
    const current = (await harness.request('GET', `${pods}/p`)).json();
    const status = {
      phase: 'Running', observedGeneration: 1, hostIP: '192.168.1.5', hostIPs: [{ ip: '192.168.1.5' }], podIP: '10.244.1.7',
      podIPs: [{ ip: '10.244.1.7' }, { ip: 'fd00::7' }], startTime: '2026-01-01T00:00:00Z', qosClass: 'Burstable',
      conditions: [
        { type: 'PodReadyToStartContainers', status: 'True', lastProbeTime: null, lastTransitionTime: '2026-01-01T00:00:01Z' },
        { type: 'Ready', status: 'False', reason: 'ContainersNotReady', message: 'containers with unready status: [web]', lastTransitionTime: '2026-01-01T00:00:02Z', observedGeneration: 1 },
      ],
      containerStatuses: [{
        name: 'web', ready: false, restartCount: 2, image: 'nginx:1.27', imageID: 'docker.io/library/nginx@sha256:abc', containerID: 'containerd://1',
        started: true, state: { running: { startedAt: '2026-01-01T00:00:03Z' } },
        lastState: { terminated: { exitCode: 137, signal: 9, reason: 'OOMKilled', startedAt: '2026-01-01T00:00:00Z', finishedAt: '2026-01-01T00:00:02Z', containerID: 'containerd://0' } },
        allocatedResources: { cpu: '250m' }, resources: { requests: { cpu: '250m' } },
        volumeMounts: [{ name: 'kube-api-access', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', readOnly: true, recursiveReadOnly: 'Disabled' }],
        user: { linux: { uid: 101, gid: 101, supplementalGroups: [101] } },
        allocatedResourcesStatus: [{ name: 'claim:gpu', resources: [{ resourceID: 'gpu-0', health: 'Healthy' }] }],
      }],
      initContainerStatuses: [{ name: 'init', ready: false, restartCount: 0, image: 'busybox', imageID: '', state: { waiting: { reason: 'PodInitializing' } } }],
      resourceClaimStatuses: [{ name: 'gpu', resourceClaimName: 'p-gpu-x7' }],
    };
    const response = await harness.request('PUT', `${pods}/p/status?fieldValidation=Strict`, { ...current, status });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['warning']).toBeUndefined();
    expect(response.json().status.containerStatuses).toEqual(status.containerStatuses);
    expect(response.json().status.resourceClaimStatuses).toEqual(status.resourceClaimStatuses);
  });
});

describe('nodes, services, endpoints and events', () => {
  it('a Node with runtime handlers and features round-trips under Strict', async () => {
    const node = {
      apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' },
      spec: {
        podCIDR: '10.244.1.0/24', podCIDRs: ['10.244.1.0/24'], providerID: 'kind://n1',
        taints: [{ key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' }],
      },
    };
    const created = await harness.request('POST', '/api/v1/nodes?fieldValidation=Strict', node);
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().spec).toEqual(node.spec);
    const status = {
      capacity: { cpu: '8', memory: '16Gi', pods: 110 }, allocatable: { cpu: '7800m', memory: '15Gi', pods: '110' },
      conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: '2026-01-01T00:00:00Z', lastTransitionTime: '2026-01-01T00:00:00Z', reason: 'KubeletReady', message: 'kubelet is posting ready status' }],
      addresses: [{ type: 'InternalIP', address: '192.168.1.5' }, { type: 'Hostname', address: 'n1' }],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: {
        machineID: 'm', systemUUID: 's', bootID: 'b', kernelVersion: '6.8.0', osImage: 'Ubuntu', containerRuntimeVersion: 'containerd://2.0.0',
        kubeletVersion: 'v1.34.0', kubeProxyVersion: '', operatingSystem: 'linux', architecture: 'amd64', swap: { capacity: 0 },
      },
      images: [{ names: ['nginx:1.27'], sizeBytes: 72000000 }],
      runtimeHandlers: [{ name: 'runc', features: { recursiveReadOnlyMounts: true, userNamespaces: true } }],
      features: { supplementalGroupsPolicy: true },
      config: { active: { configMap: { namespace: 'kube-system', name: 'kubelet', kubeletConfigKey: 'kubelet' } } },
    };
    const updated = await harness.request('PUT', '/api/v1/nodes/n1/status?fieldValidation=Strict', { ...created.json<object>(), status });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(updated.headers['warning']).toBeUndefined();
    const stored = (await harness.request('GET', '/api/v1/nodes/n1')).json();
    // The number written for a quantity comes back as its canonical text.
    expect(stored.status).toEqual({ ...status, capacity: { ...status.capacity, pods: '110' } });
    expect(stored.spec).toEqual(node.spec);
    const typo = await harness.request('PUT', '/api/v1/nodes/n1/status?fieldValidation=Strict', { ...stored, status: { ...status, nodeInfo: { ...status.nodeInfo, swap: { capacty: 1 } } } });
    expect(typo.statusCode).toBe(400);
    expect(typo.json().message).toBe('Node in version "v1" cannot be handled as a Node: strict decoding error: unknown field "status.nodeInfo.swap.capacty"');
  });

  it('Service status: load balancer ingress with ports and metav1 conditions; an unknown field there is reported', async () => {
    const services = '/api/v1/namespaces/t/services';
    const created = await harness.request('POST', `${services}?fieldValidation=Strict`, {
      apiVersion: 'v1', kind: 'Service', metadata: { name: 'lb' },
      spec: { type: 'LoadBalancer', selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 'http', appProtocol: 'http' }], sessionAffinity: 'ClientIP', sessionAffinityConfig: { clientIP: { timeoutSeconds: 600 } }, externalTrafficPolicy: 'Local', loadBalancerSourceRanges: ['10.0.0.0/8'] },
    });
    expect(created.statusCode, created.body).toBe(201);
    const status = {
      loadBalancer: { ingress: [{ ip: '203.0.113.10', ipMode: 'VIP', ports: [{ port: 80, protocol: 'TCP' }] }, { hostname: 'lb.example.com' }] },
      conditions: [{ type: 'Available', status: 'True', observedGeneration: 1, lastTransitionTime: '2026-01-01T00:00:00Z', reason: 'Provisioned', message: 'ok' }],
    };
    const updated = await harness.request('PUT', `${services}/lb/status?fieldValidation=Strict`, { ...created.json<object>(), status });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(updated.json().status).toEqual(status);
    const typo = await harness.request('PUT', `${services}/lb/status?fieldValidation=Strict`, {
      ...updated.json<object>(), status: { ...status, loadBalancer: { ingress: [{ ip: '203.0.113.10', ports: [{ port: 80, protocol: 'TCP', eror: 'x' }] }] } },
    });
    expect(typo.statusCode).toBe(400);
    expect(typo.json().message).toBe('Service in version "v1" cannot be handled as a Service: strict decoding error: unknown field "status.loadBalancer.ingress[0].ports[0].eror"');
  });

  it('Endpoints and both Event groups report deep unknown fields', async () => {
    const endpoints = await harness.request('POST', '/api/v1/namespaces/t/endpoints?fieldValidation=Strict', {
      apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'web' },
      subsets: [{ addresses: [{ ip: '10.0.0.1', targetRef: { kind: 'Pod', name: 'p', namespace: 't', uidd: 'x' } }], ports: [{ port: 80 }] }],
    });
    expect(endpoints.statusCode).toBe(400);
    expect(endpoints.json().message).toBe('Endpoints in version "v1" cannot be handled as a Endpoints: strict decoding error: unknown field "subsets[0].addresses[0].targetRef.uidd"');
    const event = await harness.request('POST', '/apis/events.k8s.io/v1/namespaces/t/events?fieldValidation=Strict', {
      apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'e' }, eventTime: '2026-01-01T00:00:00.000000Z',
      reportingController: 'c', reportingInstance: 'i', action: 'A', reason: 'R', type: 'Normal', regarding: { kind: 'Pod', name: 'p' },
      series: { count: 2, lastObservedTime: '2026-01-01T00:00:01.000000Z', firstObservedTime: 'x' },
    });
    expect(event.statusCode).toBe(400);
    expect(event.json().message).toBe('Event in version "v1" cannot be handled as a Event: strict decoding error: unknown field "series.firstObservedTime"');
    const core = await harness.request('POST', '/api/v1/namespaces/t/events?fieldValidation=Strict', {
      apiVersion: 'v1', kind: 'Event', metadata: { name: 'e' }, involvedObject: { kind: 'Pod', name: 'p' }, reason: 'R', message: 'm',
      source: { component: 'c', hots: 'h' }, count: 'two',
    });
    expect(core.statusCode).toBe(400);
    expect(core.json().message).toContain('count: must be integer');
  });
});

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Follows a use of a named definition ($ref, or v3's allOf of one) to the definition. */
function resolve(definitions: Json, node: Json): Json {
  const target = node['allOf']?.[0]?.['$ref'] ?? node['$ref'];
  return typeof target === 'string' ? resolve(definitions, definitions[target.split('/').at(-1)!]) : node;
}

/** The schema under `path` from a definition: properties by name, a list stepped through to its items. */
function walk(definitions: Json, name: string, ...path: string[]): Json {
  let node = resolve(definitions, definitions[name]);
  for (const part of path) {
    node = resolve(definitions, node['type'] === 'array' ? resolve(definitions, node['items']) : node);
    node = resolve(definitions, node['properties'][part]);
  }
  return node;
}

describe('OpenAPI', () => {
  const kinds = servedKinds.filter((kind) => kind.group === '' && kind.version === 'v1');
  const pod = 'io.k8s.api.core.v1.Pod';

  it('v3 describes probes, affinity and volumes to the leaves with kube\'s definition names and extensions', () => {
    const schemas = (openApiV3Document(kinds)['components'] as Json)['schemas'] as Json;
    const spec = schemas[pod].properties.spec;
    expect(spec).toEqual({ allOf: [{ $ref: '#/components/schemas/io.k8s.api.core.v1.PodSpec' }] });
    const containers = walk(schemas, pod, 'spec', 'containers');
    expect(containers).toMatchObject({
      type: 'array', 'x-kubernetes-list-type': 'map', 'x-kubernetes-list-map-keys': ['name'],
      'x-kubernetes-patch-merge-key': 'name', 'x-kubernetes-patch-strategy': 'merge',
      items: { allOf: [{ $ref: '#/components/schemas/io.k8s.api.core.v1.Container' }] },
    });
    expect(schemas['io.k8s.api.core.v1.Container'].required).toEqual(['name']);
    const httpGet = walk(schemas, pod, 'spec', 'containers', 'livenessProbe', 'httpGet');
    expect(httpGet).toBe(schemas['io.k8s.api.core.v1.HTTPGetAction']);
    expect(Object.keys(httpGet.properties).sort()).toEqual(['host', 'httpHeaders', 'path', 'port', 'scheme']);
    expect(walk(schemas, 'io.k8s.api.core.v1.HTTPGetAction', 'port')).toEqual({ 'x-kubernetes-int-or-string': true });
    expect(httpGet.required).toEqual(['port']);
    expect(walk(schemas, 'io.k8s.api.core.v1.Probe', 'periodSeconds')).toEqual({ type: 'integer', format: 'int32' });
    expect(schemas['io.k8s.apimachinery.pkg.api.resource.Quantity']).toEqual({ oneOf: [{ type: 'string' }, { type: 'number' }] });
    expect(walk(schemas, 'io.k8s.api.core.v1.ResourceRequirements', 'limits').additionalProperties)
      .toEqual({ allOf: [{ $ref: '#/components/schemas/io.k8s.apimachinery.pkg.api.resource.Quantity' }] });
    expect(walk(schemas, 'io.k8s.api.core.v1.Container', 'ports')['x-kubernetes-list-map-keys']).toEqual(['containerPort', 'protocol']);
    expect(walk(schemas, 'io.k8s.api.core.v1.PodSpec', 'tolerations')['x-kubernetes-list-type']).toBe('atomic');
    expect(walk(schemas, 'io.k8s.api.core.v1.PodSpec', 'nodeSelector')['x-kubernetes-map-type']).toBe('atomic');
    expect(walk(schemas, pod, 'spec', 'affinity', 'podAntiAffinity', 'requiredDuringSchedulingIgnoredDuringExecution', 'topologyKey')).toEqual({ type: 'string' });
    expect(Object.keys(schemas['io.k8s.api.core.v1.Volume'].properties)).toContain('projected');
    expect(walk(schemas, 'io.k8s.api.core.v1.Node', 'status', 'runtimeHandlers')['x-kubernetes-list-type']).toBe('atomic');
    // Every reference resolves.
    for (const target of JSON.stringify(schemas).matchAll(/"#\/components\/schemas\/([^"]+)"/g)) expect(schemas[target[1]!], target[1]).toBeDefined();
  });

  it('v2 publishes Quantity as a string and IntOrString with its format', () => {
    const definitions = openApiV2Document(kinds)['definitions'] as Json;
    expect(definitions['io.k8s.api.core.v1.PodSpec'].properties.containers.items).toEqual({ $ref: '#/definitions/io.k8s.api.core.v1.Container' });
    expect(definitions['io.k8s.apimachinery.pkg.api.resource.Quantity']).toEqual({ type: 'string' });
    expect(definitions['io.k8s.apimachinery.pkg.util.intstr.IntOrString']).toEqual({ type: 'string', format: 'int-or-string' });
    expect(walk(definitions, 'io.k8s.api.core.v1.Container', 'env')['x-kubernetes-patch-merge-key']).toBe('name');
    for (const target of JSON.stringify(definitions).matchAll(/"#\/definitions\/([^"]+)"/g)) expect(definitions[target[1]!], target[1]).toBeDefined();
  });
});
