// Rich objects of the kinds kstore speaks in protobuf (Kubernetes 1.33 fields only), in the
// JSON shape kube-apiserver serves (omitempty zero values absent; pointer and non-omitempty zero
// values present), so that JSON → protobuf → JSON must give them back unchanged. Every field
// family is filled: each VolumeSource, probe handler, affinity kind, status state, ...

const time = '2026-11-22T21:00:00Z';
const later = '2026-11-22T21:05:30Z';

export const objectMeta = {
  name: 'web-0', namespace: 't', uid: 'u-1', resourceVersion: '42', generation: 2, creationTimestamp: time,
  labels: { app: 'web' }, annotations: { note: '' },
  ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: 'o-1', controller: true, blockOwnerDeletion: true }],
  finalizers: ['example.com/f'],
};

const labelSelector = { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['a', 'b'] }, { key: 'x', operator: 'Exists' }] };

/** One volume per VolumeSource kind kube has. */
export const volumes = [
  { name: 'host', hostPath: { path: '/var/log', type: '' } },
  { name: 'scratch', emptyDir: { medium: 'Memory', sizeLimit: '64Mi' } },
  { name: 'gce', gcePersistentDisk: { pdName: 'disk', fsType: 'ext4', partition: 1, readOnly: true } },
  { name: 'ebs', awsElasticBlockStore: { volumeID: 'vol-1', fsType: 'ext4', partition: 2 } },
  { name: 'git', gitRepo: { repository: 'https://example.com/r.git', revision: 'main', directory: '.' } },
  { name: 'sec', secret: { secretName: 's', items: [{ key: 'k', path: 'p', mode: 0 }], defaultMode: 420, optional: false } },
  { name: 'nfs', nfs: { server: 'nfs.local', path: '/export', readOnly: true } },
  { name: 'iscsi', iscsi: { targetPortal: '10.0.0.1:3260', iqn: 'iqn.2001-04.com.example:storage', lun: 0, iscsiInterface: 'default', portals: ['10.0.0.2:3260'], chapAuthDiscovery: true, chapAuthSession: true, secretRef: { name: 'chap' }, initiatorName: 'iqn.x' } },
  { name: 'gluster', glusterfs: { endpoints: 'ep', path: 'vol' } },
  { name: 'claim', persistentVolumeClaim: { claimName: 'data', readOnly: true } },
  { name: 'rbd', rbd: { monitors: ['m1'], image: 'img', pool: 'rbd', user: 'admin', keyring: '/etc/ceph/keyring', secretRef: { name: 'ceph' } } },
  { name: 'flex', flexVolume: { driver: 'example/flex', fsType: 'ext4', options: { a: '1', b: '2' } } },
  { name: 'cinder', cinder: { volumeID: 'c-1', secretRef: { name: 'os' } } },
  { name: 'cephfs', cephfs: { monitors: ['m1', 'm2'], path: '/', user: 'admin', secretFile: '/etc/ceph/s', readOnly: true } },
  { name: 'flocker', flocker: { datasetName: 'ds', datasetUUID: 'uuid' } },
  { name: 'downward', downwardAPI: {
    items: [
      { path: 'labels', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.labels' } },
      { path: 'cpu', resourceFieldRef: { containerName: 'app', resource: 'limits.cpu', divisor: '1m' }, mode: 256 },
    ],
    defaultMode: 420,
  } },
  { name: 'fc', fc: { targetWWNs: ['500a0982991b8dc5'], lun: 0, fsType: 'ext4', wwids: ['w1'] } },
  { name: 'azfile', azureFile: { secretName: 'az', shareName: 'share', readOnly: true } },
  { name: 'cm', configMap: { name: 'settings', items: [{ key: 'a', path: 'a.txt' }], defaultMode: 0, optional: true } },
  { name: 'vsphere', vsphereVolume: { volumePath: '[ds] vol.vmdk', fsType: 'ext4', storagePolicyName: 'gold', storagePolicyID: 'id' } },
  { name: 'quobyte', quobyte: { registry: 'reg:7861', volume: 'v', user: 'u', group: 'g', tenant: 't' } },
  { name: 'azdisk', azureDisk: { diskName: 'd', diskURI: 'uri', cachingMode: 'ReadWrite', fsType: 'ext4', readOnly: false, kind: 'Managed' } },
  { name: 'photon', photonPersistentDisk: { pdID: 'pd', fsType: 'ext4' } },
  { name: 'projected', projected: {
    sources: [
      { secret: { name: 's', items: [{ key: 'k', path: 'k' }], optional: false } },
      { downwardAPI: { items: [{ path: 'name', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } }] } },
      { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
      { serviceAccountToken: { audience: 'api', expirationSeconds: 3607, path: 'token' } },
      { clusterTrustBundle: { signerName: 'example.com/signer', labelSelector, optional: true, path: 'bundle.pem' } },
    ],
    defaultMode: 420,
  } },
  { name: 'portworx', portworxVolume: { volumeID: 'px', fsType: 'ext4' } },
  { name: 'scaleio', scaleIO: { gateway: 'https://gw', system: 'sys', secretRef: { name: 'sio' }, sslEnabled: true, protectionDomain: 'pd', storagePool: 'sp', storageMode: 'ThinProvisioned', volumeName: 'v', fsType: 'xfs' } },
  { name: 'storageos', storageos: { volumeName: 'v', volumeNamespace: 'ns', fsType: 'ext4', readOnly: true, secretRef: { name: 'sos' } } },
  { name: 'csi', csi: { driver: 'csi.example.com', readOnly: false, fsType: 'ext4', volumeAttributes: { size: '1Gi' }, nodePublishSecretRef: { name: 'csi' } } },
  { name: 'eph', ephemeral: { volumeClaimTemplate: {
    metadata: { labels: { type: 'scratch' } },
    spec: {
      accessModes: ['ReadWriteOnce'], selector: labelSelector, resources: { requests: { storage: '1Gi' }, limits: { storage: '2Gi' } },
      volumeName: 'pv', storageClassName: '', volumeMode: 'Filesystem',
      dataSource: { apiGroup: 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot', name: 'snap' },
      dataSourceRef: { apiGroup: 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot', name: 'snap', namespace: 'other' },
      volumeAttributesClassName: 'fast',
    },
  } } },
  { name: 'image', image: { reference: 'registry.example.com/data:1', pullPolicy: 'IfNotPresent' } },
];

const probe = {
  httpGet: { path: '/healthz', port: 'http', host: '127.0.0.1', scheme: 'HTTPS', httpHeaders: [{ name: 'X-A', value: '' }] },
  initialDelaySeconds: 5, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3, terminationGracePeriodSeconds: 0,
};

const securityContext = {
  capabilities: { add: ['NET_ADMIN'], drop: ['ALL'] }, privileged: false, seLinuxOptions: { user: 'u', role: 'r', type: 't', level: 's0' },
  windowsOptions: { gmsaCredentialSpecName: 'n', gmsaCredentialSpec: 's', runAsUserName: 'ContainerUser', hostProcess: false },
  runAsUser: 0, runAsGroup: 0, runAsNonRoot: false, readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, procMount: 'Default',
  seccompProfile: { type: 'RuntimeDefault' }, appArmorProfile: { type: 'Localhost', localhostProfile: 'k8s-apparmor' },
};

export const container = {
  name: 'app', image: 'registry.example.com/app:1', command: ['/app'], args: ['--port', '8080'], workingDir: '/work',
  ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }, { hostPort: 9090, containerPort: 0, protocol: 'UDP', hostIP: '0.0.0.0' }],
  envFrom: [{ prefix: 'CM_', configMapRef: { name: 'settings', optional: false } }, { secretRef: { name: 's' } }],
  env: [
    { name: 'PLAIN', value: 'x' }, { name: 'EMPTY' },
    { name: 'NODE', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'spec.nodeName' } } },
    { name: 'MEM', valueFrom: { resourceFieldRef: { containerName: 'app', resource: 'limits.memory', divisor: '0' } } },
    { name: 'CM', valueFrom: { configMapKeyRef: { name: 'settings', key: 'k', optional: true } } },
    { name: 'SEC', valueFrom: { secretKeyRef: { name: 's', key: 'password' } } },
  ],
  resources: { limits: { cpu: '500m', memory: '128Mi', 'example.com/gpu': '1' }, requests: { cpu: '250m', memory: '64Mi' }, claims: [{ name: 'gpu', request: 'one' }] },
  resizePolicy: [{ resourceName: 'cpu', restartPolicy: 'NotRequired' }],
  volumeMounts: [
    { name: 'scratch', mountPath: '/scratch' },
    { name: 'claim', readOnly: true, recursiveReadOnly: 'Enabled', mountPath: '/data', subPath: 'sub', mountPropagation: 'HostToContainer' },
    { name: 'cm', mountPath: '/cfg', subPathExpr: '$(POD_NAME)' },
  ],
  volumeDevices: [{ name: 'block', devicePath: '/dev/xvda' }],
  livenessProbe: probe,
  readinessProbe: { tcpSocket: { port: 8080, host: 'localhost' }, periodSeconds: 5 },
  startupProbe: { grpc: { port: 9000, service: '' }, failureThreshold: 30 },
  lifecycle: {
    postStart: { exec: { command: ['sh', '-c', 'echo hi'] } },
    preStop: { sleep: { seconds: 0 } },
    stopSignal: 'SIGTERM',
  },
  terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', imagePullPolicy: 'IfNotPresent',
  securityContext, stdin: true, stdinOnce: true, tty: true,
};

export const initContainer = {
  name: 'init', image: 'busybox', command: ['true'], restartPolicy: 'Always',
  lifecycle: { preStop: { httpGet: { path: '/stop', port: 80 } }, postStart: { tcpSocket: { port: 'admin' } } },
  resources: {}, terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'FallbackToLogsOnError', imagePullPolicy: 'Always',
};

const nodeSelectorTerm = {
  matchExpressions: [{ key: 'kubernetes.io/os', operator: 'In', values: ['linux'] }],
  matchFields: [{ key: 'metadata.name', operator: 'NotIn', values: ['n9'] }],
};

const podAffinityTerm = {
  labelSelector, namespaces: ['t'], topologyKey: 'kubernetes.io/hostname', namespaceSelector: {},
  matchLabelKeys: ['pod-template-hash'], mismatchLabelKeys: ['tenant'],
};

const containerStatus = {
  name: 'app', ready: false, restartCount: 0, image: 'registry.example.com/app:1', imageID: '', started: false,
  state: { waiting: { reason: 'ContainerCreating', message: 'pulling' } },
  lastState: { terminated: { exitCode: 0, signal: 9, reason: 'Completed', message: 'done', startedAt: time, finishedAt: later, containerID: 'containerd://a' } },
  containerID: 'containerd://b',
  allocatedResources: { cpu: '250m' },
  resources: { limits: { cpu: '500m' }, requests: { cpu: '250m' } },
  volumeMounts: [{ name: 'image', mountPath: '/img', readOnly: true, recursiveReadOnly: 'Disabled' }],
  user: { linux: { uid: 0, gid: 0, supplementalGroups: [10, 20] } },
  allocatedResourcesStatus: [{ name: 'claim:gpu', resources: [{ resourceID: 'gpu-0', health: 'Healthy' }] }],
  stopSignal: 'SIGKILL',
};

export const richPod = {
  apiVersion: 'v1', kind: 'Pod', metadata: objectMeta,
  spec: {
    volumes, initContainers: [initContainer], containers: [container],
    ephemeralContainers: [{ name: 'debugger', image: 'busybox', stdin: true, tty: true, targetContainerName: 'app', terminationMessagePolicy: 'File', resources: {} }],
    restartPolicy: 'Always', terminationGracePeriodSeconds: 0, activeDeadlineSeconds: 600, dnsPolicy: 'None',
    nodeSelector: { 'kubernetes.io/os': 'linux', disk: 'ssd' },
    serviceAccountName: 'default', serviceAccount: 'default', automountServiceAccountToken: false, nodeName: 'n1',
    hostNetwork: true, hostPID: true, hostIPC: true, shareProcessNamespace: false,
    securityContext: {
      seLinuxOptions: { level: 's0:c1,c2' }, windowsOptions: { runAsUserName: 'u' }, runAsUser: 1000, runAsGroup: 0, runAsNonRoot: true,
      supplementalGroups: [1, 2], supplementalGroupsPolicy: 'Strict', fsGroup: 0, sysctls: [{ name: 'net.core.somaxconn', value: '1024' }],
      fsGroupChangePolicy: 'OnRootMismatch', seccompProfile: { type: 'Localhost', localhostProfile: 'profile.json' }, appArmorProfile: { type: 'RuntimeDefault' },
      seLinuxChangePolicy: 'MountOption',
    },
    imagePullSecrets: [{ name: 'regcred' }], hostname: 'web-0', subdomain: 'web',
    affinity: {
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [nodeSelectorTerm] },
        preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 0, preference: nodeSelectorTerm }],
      },
      podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [podAffinityTerm], preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 50, podAffinityTerm }] },
      podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: { topologyKey: 'zone' } }] },
    },
    schedulerName: 'default-scheduler',
    tolerations: [
      { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      { key: 'k', operator: 'Equal', value: 'v', effect: 'NoSchedule' }, { operator: 'Exists', tolerationSeconds: 0 },
    ],
    hostAliases: [{ ip: '10.0.0.1', hostnames: ['a.local', 'b.local'] }],
    priorityClassName: 'high', priority: 0,
    dnsConfig: { nameservers: ['1.1.1.1'], searches: ['svc.cluster.local'], options: [{ name: 'ndots', value: '2' }, { name: 'edns0' }] },
    readinessGates: [{ conditionType: 'example.com/ready' }], runtimeClassName: 'gvisor', enableServiceLinks: false,
    preemptionPolicy: 'Never', overhead: { cpu: '10m', memory: '1Mi' },
    topologySpreadConstraints: [{
      maxSkew: 1, topologyKey: 'zone', whenUnsatisfiable: 'DoNotSchedule', labelSelector, minDomains: 2,
      nodeAffinityPolicy: 'Honor', nodeTaintsPolicy: 'Ignore', matchLabelKeys: ['pod-template-hash'],
    }],
    setHostnameAsFQDN: false, os: { name: 'linux' }, hostUsers: false,
    schedulingGates: [{ name: 'example.com/gate' }],
    resourceClaims: [{ name: 'gpu', resourceClaimTemplateName: 'gpu-template' }, { name: 'shared', resourceClaimName: 'shared-claim' }],
    resources: { limits: { cpu: '1' }, requests: { cpu: '500m' } },
  },
  status: {
    observedGeneration: 2, phase: 'Running',
    conditions: [
      { type: 'Ready', status: 'False', observedGeneration: 2, lastProbeTime: time, lastTransitionTime: later, reason: 'ContainersNotReady', message: 'containers with unready status: [app]' },
      { type: 'PodScheduled', status: 'True', lastTransitionTime: time },
    ],
    message: 'm', reason: 'r', nominatedNodeName: 'n2', hostIP: '10.0.0.5', hostIPs: [{ ip: '10.0.0.5' }, { ip: 'fd00::5' }],
    podIP: '10.244.1.7', podIPs: [{ ip: '10.244.1.7' }, { ip: 'fd00:10:244::7' }], startTime: time,
    initContainerStatuses: [{ name: 'init', ready: true, restartCount: 2, image: 'busybox', imageID: 'docker.io/library/busybox@sha256:1', started: true, state: { running: { startedAt: later } }, lastState: {} }],
    containerStatuses: [containerStatus],
    qosClass: 'Burstable',
    ephemeralContainerStatuses: [{ name: 'debugger', ready: false, restartCount: 0, image: 'busybox', imageID: '', state: { running: {} }, lastState: {} }],
    resize: 'InProgress',
    resourceClaimStatuses: [{ name: 'gpu', resourceClaimName: 'web-0-gpu-x' }, { name: 'shared' }],
  },
};

export const richNode = {
  apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', uid: 'n-1', resourceVersion: '7', creationTimestamp: time, labels: { 'kubernetes.io/hostname': 'n1' } },
  spec: {
    podCIDR: '10.244.1.0/24', podCIDRs: ['10.244.1.0/24', 'fd00:10:244:1::/64'], providerID: 'kind://docker/n1', unschedulable: true,
    taints: [{ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule', timeAdded: time }, { key: 'k', value: 'v', effect: 'NoExecute' }],
    configSource: { configMap: { namespace: 'kube-system', name: 'kubelet', uid: 'c-1', resourceVersion: '3', kubeletConfigKey: 'kubelet' } },
    externalID: 'ext',
  },
  status: {
    capacity: { cpu: '8', memory: '32Gi', pods: '110', 'ephemeral-storage': '100Gi' },
    allocatable: { cpu: '7800m', memory: '31Gi', pods: '110' },
    phase: 'Running',
    conditions: [
      { type: 'Ready', status: 'True', lastHeartbeatTime: later, lastTransitionTime: time, reason: 'KubeletReady', message: 'kubelet is posting ready status' },
      { type: 'MemoryPressure', status: 'False', lastHeartbeatTime: later, lastTransitionTime: time, reason: 'KubeletHasSufficientMemory' },
    ],
    addresses: [{ type: 'InternalIP', address: '10.0.0.5' }, { type: 'Hostname', address: 'n1' }],
    daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
    nodeInfo: {
      machineID: 'm', systemUUID: 's', bootID: 'b', kernelVersion: '6.8.0', osImage: 'Debian GNU/Linux 12', containerRuntimeVersion: 'containerd://2.0.0',
      kubeletVersion: 'v1.33.0', kubeProxyVersion: '', operatingSystem: 'linux', architecture: 'amd64', swap: { capacity: 0 },
    },
    images: [{ names: ['registry.k8s.io/pause:3.10', 'registry.k8s.io/pause@sha256:ee'], sizeBytes: 320368 }, { names: ['busybox'] }],
    volumesInUse: ['kubernetes.io/csi/csi.example.com^vol-1'],
    volumesAttached: [{ name: 'kubernetes.io/csi/csi.example.com^vol-1', devicePath: '' }],
    config: {
      assigned: { configMap: { namespace: 'kube-system', name: 'kubelet', kubeletConfigKey: 'kubelet' } },
      active: { configMap: { namespace: 'kube-system', name: 'kubelet', kubeletConfigKey: 'kubelet' } },
      lastKnownGood: {}, error: 'none',
    },
    runtimeHandlers: [{ name: '', features: { recursiveReadOnlyMounts: true, userNamespaces: false } }, { name: 'runc' }],
    features: { supplementalGroupsPolicy: true },
  },
};

export const richEndpoints = {
  apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'web', namespace: 't', labels: { app: 'web' }, annotations: { 'endpoints.kubernetes.io/last-change-trigger-time': later } },
  subsets: [
    {
      addresses: [
        { ip: '10.244.1.7', hostname: 'web-0', nodeName: 'n1', targetRef: { kind: 'Pod', namespace: 't', name: 'web-0', uid: 'u-1', resourceVersion: '42' } },
        { ip: '10.244.2.8', nodeName: '' },
      ],
      notReadyAddresses: [{ ip: '10.244.3.9', targetRef: { kind: 'Pod', name: 'web-1', fieldPath: 'spec' } }],
      ports: [{ name: 'http', port: 8080, protocol: 'TCP', appProtocol: 'http' }, { port: 0, protocol: 'UDP' }],
    },
    { ports: [{ name: 'dns', port: 53, protocol: 'UDP' }] },
  ],
};

const regarding = { kind: 'Pod', namespace: 't', name: 'web-0', uid: 'u-1', apiVersion: 'v1', resourceVersion: '42', fieldPath: 'spec.containers{app}' };

export const richEventsV1Event = {
  apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'web-0.1', namespace: 't', creationTimestamp: time },
  eventTime: '2026-11-22T21:00:00.123456Z', series: { count: 0, lastObservedTime: '2026-11-22T21:05:30.000001Z' },
  reportingController: 'default-scheduler', reportingInstance: 'default-scheduler-n1', action: 'Binding', reason: 'Scheduled',
  regarding, related: { kind: 'Node', name: 'n1', apiVersion: 'v1' }, note: 'Successfully assigned t/web-0 to n1', type: 'Normal',
  deprecatedSource: { component: 'kubelet', host: 'n1' }, deprecatedFirstTimestamp: time, deprecatedLastTimestamp: later, deprecatedCount: 3,
};

export const richCoreEvent = {
  apiVersion: 'v1', kind: 'Event', metadata: { name: 'web-0.2', namespace: 't' },
  involvedObject: regarding, reason: 'Pulled', message: 'Successfully pulled image', source: { component: 'kubelet', host: 'n1' },
  firstTimestamp: time, lastTimestamp: later, count: 2, type: 'Normal', eventTime: '2026-11-22T21:00:00.500000Z',
  series: { count: 2, lastObservedTime: '2026-11-22T21:05:30.250000Z' }, action: 'Pulling', related: { kind: 'Node', name: 'n1' },
  reportingComponent: '', reportingInstance: 'n1',
};
