// Golden protobuf bytes per kind: Pod bodies captured from a real kubectl (its typed client
// creates pods in protobuf for `kubectl debug`), and Node, Endpoints and events.k8s.io/v1 Event
// bodies derived by hand from generated.proto the way gogo-protobuf (client-go) writes them:
// every non-pointer field present, "" and 0 included, in field-number order.
import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decodeProtobufObject, encodeProtobufObject } from '../../../api/codecs/protobuf.ts';
import { admin, startHarness } from './harness.ts';
import type { Harness } from './harness.ts';

interface CapturedRequest {
  readonly command: string;
  readonly path: string;
  readonly contentType: string;
  readonly hex: string;
}

const captured = (JSON.parse(readFileSync(new URL('./fixtures/kubectl-protobuf-pods.json', import.meta.url), 'utf8')) as { requests: CapturedRequest[] }).requests;

function capturedBody(commandStart: string): Buffer {
  const request = captured.find((entry) => entry.command.startsWith(commandStart));
  if (request === undefined) throw new Error(`no captured request for ${commandStart}`);
  return Buffer.from(request.hex, 'hex');
}

/** JSON → protobuf → JSON leaves an object decoded from a real client's bytes unchanged. */
function stable(object: Record<string, unknown>): Record<string, unknown> {
  return decodeProtobufObject(encodeProtobufObject(object));
}

const debugNodePod = {
  apiVersion: 'v1', kind: 'Pod', metadata: { name: 'node-debugger-n1-gms95', creationTimestamp: null },
  spec: {
    volumes: [{ name: 'host-root', hostPath: { path: '/' } }],
    containers: [{ name: 'debugger', image: 'busybox', resources: {}, volumeMounts: [{ name: 'host-root', mountPath: '/host' }], terminationMessagePolicy: 'File' }],
    restartPolicy: 'Never', nodeName: 'n1', hostNetwork: true, hostPID: true, hostIPC: true, tolerations: [{ operator: 'Exists' }],
  },
  status: {},
};

describe('Pod bodies sent by a real kubectl (v1.32, captured verbatim)', () => {
  it('kubectl debug node/n1: hostPath volume, host namespaces, a toleration', () => {
    expect(decodeProtobufObject(capturedBody('kubectl debug node/n1'))).toEqual(debugNodePod);
    expect(stable(debugNodePod)).toEqual(debugNodePod);
  });

  it('kubectl debug --copy-to: the whole served spec (projected token volume, probes, defaults) comes back', () => {
    const pod = decodeProtobufObject(capturedBody('kubectl debug web --copy-to'));
    expect(pod).toMatchObject({
      apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web-copy', namespace: 'default', creationTimestamp: null },
      spec: {
        restartPolicy: 'Always', terminationGracePeriodSeconds: 30, dnsPolicy: 'ClusterFirst', serviceAccountName: 'default', serviceAccount: 'default',
        securityContext: {}, schedulerName: 'default-scheduler', priority: 0, enableServiceLinks: true, preemptionPolicy: 'PreemptLowerPriority',
        tolerations: [
          { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
          { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
        ],
      },
      status: {},
    });
    const spec = pod['spec'] as { volumes: unknown[]; containers: unknown[] };
    expect(spec.volumes).toEqual([
      { name: 'cfg', configMap: { name: 'cfg' } },
      { name: 'kube-api-access-jwrp9', projected: {
        sources: [
          { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
          { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
          { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
        ],
        defaultMode: 420,
      } },
    ]);
    expect(spec.containers).toEqual([
      {
        name: 'app', image: 'nginx', ports: [{ name: 'http', containerPort: 80, protocol: 'TCP' }], env: [{ name: 'A', value: 'b' }],
        resources: { limits: { cpu: '500m', memory: '64Mi' } },
        volumeMounts: [{ name: 'kube-api-access-jwrp9', readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' }],
        readinessProbe: { httpGet: { path: '/', port: 'http' } },
        terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', imagePullPolicy: 'Always',
      },
      { name: 'dbg', image: 'busybox', command: ['sleep', '1'], resources: {}, terminationMessagePolicy: 'File' },
    ]);
    expect(stable(pod)).toEqual(pod);
  });
});

/** Node as a kubelet registers it (trimmed), written field by field like gogo-protobuf. */
const nodeGolden = [
  '6b387300', '0a0a', '0a027631', '12044e6f6465', // "k8s\0", typeMeta{apiVersion "v1", kind "Node"}
  '12a802', // raw, 296 bytes
  '0a30', '0a026e31', '1200', '1a00', '2200', '2a00', '3200', '3800', '4200', // metadata{name "n1", generateName..resourceVersion "", generation 0, creationTimestamp {}
  '5a1c', '0a166b756265726e657465732e696f2f686f73746e616d65', '12026e31', //   labels{"kubernetes.io/hostname": "n1"}}
  '1215', '0a0d31302e3234342e312e302f3234', '1200', '1a00', '2000', // spec{podCIDR, externalID "", providerID "", unschedulable false}
  '1adc01', // status{
  '0a0a', '0a03637075', '12030a0134', //   capacity{cpu: {string "4"}
  '0a0d', '0a04706f6473', '12050a03313130', //            pods: {string "110"}}
  '120e', '0a03637075', '12070a05333830306d', //   allocatable{cpu: "3800m"}
  '1a00', //   phase ""
  '2250', '0a055265616479', '120454727565', //   conditions[{type Ready, status True,
  '1a08', '089ab28dd806', '1000', //     lastHeartbeatTime{seconds 2026-11-22T21:05:30Z, nanos 0}
  '2208', '08d0af8dd806', '1000', //     lastTransitionTime{seconds 2026-11-22T21:00:00Z, nanos 0}
  '2a0c4b7562656c65745265616479', '321f6b7562656c657420697320706f7374696e6720726561647920737461747573', //     reason, message}]
  '2a16', '0a0a496e7465726e616c4950', '120831302e302e302e35', //   addresses[{type InternalIP, address 10.0.0.5}]
  '3205', '0a03088a50', //   daemonEndpoints{kubeletEndpoint{Port 10250}}
  '3a3c', '0a00', '1200', '1a00', '2205362e382e30', '2a00', '3212636f6e7461696e6572643a2f2f322e302e30', //   nodeInfo{machineID.., kernelVersion, osImage, runtime,
  '3a0776312e33332e30', '4200', '4a056c696e7578', '5205616d643634', //     kubeletVersion, kubeProxyVersion "", operatingSystem, architecture}}
  '1a00', '2200', // contentEncoding "", contentType ""
].join('');

const nodeJson = {
  apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', creationTimestamp: null, labels: { 'kubernetes.io/hostname': 'n1' } },
  spec: { podCIDR: '10.244.1.0/24' },
  status: {
    capacity: { cpu: '4', pods: '110' }, allocatable: { cpu: '3800m' },
    conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: '2026-11-22T21:05:30Z', lastTransitionTime: '2026-11-22T21:00:00Z', reason: 'KubeletReady', message: 'kubelet is posting ready status' }],
    addresses: [{ type: 'InternalIP', address: '10.0.0.5' }],
    daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
    nodeInfo: {
      machineID: '', systemUUID: '', bootID: '', kernelVersion: '6.8.0', osImage: '', containerRuntimeVersion: 'containerd://2.0.0',
      kubeletVersion: 'v1.33.0', kubeProxyVersion: '', operatingSystem: 'linux', architecture: 'amd64',
    },
  },
};

/** Endpoints as the endpoints controller writes them: one ready address with its pod, one port. */
const endpointsGolden = [
  '6b387300', '0a0f', '0a027631', '1209456e64706f696e7473', // typeMeta{v1, Endpoints}
  '1258', // raw, 88 bytes
  '0a14', '0a03776562', '1200', '1a0174', '2200', '2a00', '3200', '3800', '4200', // metadata{name web, namespace t, ..}
  '1240', // subsets[{
  '0a2e', '0a0a31302e3234342e312e37', //   addresses[{ip 10.244.1.7,
  '121a', '0a03506f64', '120174', '1a057765622d30', '2203752d31', '2a00', '3200', '3a00', //     targetRef{kind Pod, namespace t, name web-0, uid u-1, apiVersion/resourceVersion/fieldPath ""},
  '1a00', '22026e31', //     hostname "", nodeName "n1"}]
  '1a0e', '0a0468747470', '10903f', '1a03544350', //   ports[{name http, port 8080, protocol TCP}]}]
  '1a00', '2200',
].join('');

const endpointsJson = {
  apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'web', namespace: 't', creationTimestamp: null },
  subsets: [{
    addresses: [{ ip: '10.244.1.7', nodeName: 'n1', targetRef: { kind: 'Pod', namespace: 't', name: 'web-0', uid: 'u-1' } }],
    ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
  }],
};

/** events.k8s.io/v1 Event as kube-scheduler records it. */
const eventGolden = [
  '6b387300', '0a19', '0a106576656e74732e6b38732e696f2f7631', '12054576656e74', // typeMeta{events.k8s.io/v1, Event}
  '12c001', // raw, 192 bytes
  '0a1b', '0a0a7765622d302e31383761', '1200', '1a0174', '2200', '2a00', '3200', '3800', '4200', // metadata{name web-0.187a, namespace t, ..}
  '120b', '08d0af8dd806', '108094ef3a', // eventTime{seconds 2026-11-22T21:00:00Z, nanos 123456000}
  '221164656661756c742d7363686564756c6572', '2a1464656661756c742d7363686564756c65722d6e31', // reportingController, reportingInstance
  '320742696e64696e67', '3a095363686564756c6564', // action Binding, reason Scheduled
  '421e', '0a03506f64', '120174', '1a057765622d30', '2203752d31', '2a027631', '32023432', '3a00', // regarding{Pod t/web-0 u-1 v1 rv 42}
  '52235375636365737366756c6c792061737369676e656420742f7765622d3020746f206e31', '5a064e6f726d616c', // note, type Normal
  '6204', '0a001200', // deprecatedSource{component "", host ""}
  '6a00', '7200', '7800', // deprecatedFirstTimestamp {}, deprecatedLastTimestamp {}, deprecatedCount 0
  '1a00', '2200',
].join('');

const eventJson = {
  apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'web-0.187a', namespace: 't', creationTimestamp: null },
  eventTime: '2026-11-22T21:00:00.123456Z', reportingController: 'default-scheduler', reportingInstance: 'default-scheduler-n1',
  action: 'Binding', reason: 'Scheduled', regarding: { kind: 'Pod', namespace: 't', name: 'web-0', uid: 'u-1', apiVersion: 'v1', resourceVersion: '42' },
  note: 'Successfully assigned t/web-0 to n1', type: 'Normal',
  deprecatedSource: {}, deprecatedFirstTimestamp: null, deprecatedLastTimestamp: null,
};

describe('bodies written like client-go (derived by hand from generated.proto)', () => {
  it.each([
    ['Node (kubelet registration)', nodeGolden, nodeJson],
    ['Endpoints (endpoints controller)', endpointsGolden, endpointsJson],
    ['events.k8s.io/v1 Event (kube-scheduler)', eventGolden, eventJson],
  ])('%s decodes to kube\'s JSON and re-encodes stably', (_name, hex, json) => {
    const decoded = decodeProtobufObject(Buffer.from(hex, 'hex'));
    expect(decoded).toEqual(json);
    expect(stable(decoded)).toEqual(json);
  });
});

describe('captured and hand-derived bodies through the API', () => {
  let harness: Harness;
  beforeEach(async () => {
    harness = await startHarness();
  });
  afterEach(async () => {
    await harness.close();
  });

  async function post(url: string, body: Buffer): Promise<Record<string, unknown>> {
    const response = await harness.app.inject({ method: 'POST', url, payload: body, headers: { ...admin, 'content-type': 'application/vnd.kubernetes.protobuf' } });
    expect(response.statusCode, response.body).toBe(201);
    return response.json();
  }

  it('kubectl debug\'s Pod, a kubelet\'s Node, the controller\'s Endpoints and the scheduler\'s Event are created', async () => {
    const pod = await post('/api/v1/namespaces/default/pods', capturedBody('kubectl debug node/n1'));
    expect(pod).toMatchObject({ metadata: { name: 'node-debugger-n1-gms95', namespace: 'default' }, spec: { nodeName: 'n1', hostPID: true, tolerations: [{ operator: 'Exists' }] } });
    expect(pod['metadata']).toHaveProperty('creationTimestamp', expect.stringMatching(/^\d{4}-/));
    const node = await post('/api/v1/nodes', Buffer.from(nodeGolden, 'hex'));
    expect(node).toMatchObject({ metadata: { name: 'n1' }, spec: nodeJson.spec });
    const endpoints = await post('/api/v1/namespaces/t/endpoints', Buffer.from(endpointsGolden, 'hex'));
    expect(endpoints).toMatchObject({ subsets: endpointsJson.subsets });
    const event = await post('/apis/events.k8s.io/v1/namespaces/t/events', Buffer.from(eventGolden, 'hex'));
    expect(event).toMatchObject({ eventTime: eventJson.eventTime, regarding: eventJson.regarding, reason: 'Scheduled' });
  });
});
