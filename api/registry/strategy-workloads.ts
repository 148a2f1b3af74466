// Owns: the create/update behaviour of pods, nodes, services, endpoints and events (core/v1 and
// events.k8s.io/v1, one stored kind) as kube-apiserver has it: the defaults a client sees in the stored object (the v1
// SetDefaults_* functions plus what the ServiceAccount, Priority and DefaultTolerationSeconds
// admission plugins add to a pod), the status rules (a write to the main resource keeps the
// stored status; a write to the status subresource keeps everything else — see
// endpoints/subresource.ts), required fields as 422 causes, and pod spec / service cluster IP
// immutability. Service cluster IPs and node ports are allocated inside apply
// (actors/service-allocation.ts), not here.
import type { JsonValue, KubeObject } from '../../actors/index.ts';
import type { StatusCause } from '../status.ts';
import type { Strategy } from './kind.ts';
import { coreViewOf } from './event-conversion.ts';
import { qualifiedNameProblems } from './validation.ts';

type Fields = Record<string, JsonValue>;

function fields(value: JsonValue | undefined): Fields {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : {};
}

function records(value: JsonValue | undefined): Fields[] {
  return Array.isArray(value) ? value.filter((item): item is Fields => item !== null && typeof item === 'object' && !Array.isArray(item)) : [];
}

function required(field: string): StatusCause {
  return { reason: 'FieldValueRequired', message: 'Required value', field };
}

function unsupported(field: string, value: JsonValue, supported: readonly string[]): StatusCause {
  return { reason: 'FieldValueNotSupported', message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${supported.map((item) => JSON.stringify(item)).join(', ')}`, field };
}

function invalidValue(field: string, value: JsonValue, detail: string): StatusCause {
  return { reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(value)}: ${detail}`, field };
}

function keepStatus(object: KubeObject, old: KubeObject): void {
  if (old['status'] !== undefined) object['status'] = old['status'];
  else delete object['status'];
}

// --- pods ---------------------------------------------------------------------------------

/** SetDefaults_Container: imagePullPolicy Always for :latest or no tag, else IfNotPresent. */
function imagePullPolicyFor(image: string): string {
  const withoutDigest = image.split('@')[0] ?? '';
  const lastPart = withoutDigest.split('/').at(-1) ?? '';
  const tag = lastPart.includes(':') ? lastPart.slice(lastPart.lastIndexOf(':') + 1) : '';
  if (image.includes('@')) return 'IfNotPresent';
  return tag === '' || tag === 'latest' ? 'Always' : 'IfNotPresent';
}

/** SetDefaults_HTTPGetAction: path "/", scheme HTTP. */
function defaultHandler(handler: JsonValue | undefined): JsonValue | undefined {
  if (handler === undefined || handler === null || typeof handler !== 'object' || Array.isArray(handler)) return handler;
  const result: Fields = { ...handler };
  const httpGet = result['httpGet'];
  if (httpGet !== null && typeof httpGet === 'object' && !Array.isArray(httpGet)) {
    result['httpGet'] = { ...httpGet, path: httpGet['path'] || '/', scheme: httpGet['scheme'] || 'HTTP' };
  }
  return result;
}

/** SetDefaults_Probe: timeout 1 s, period 10 s, success 1, failure 3 (plus its handler's defaults). */
function defaultProbe(probe: JsonValue | undefined): JsonValue | undefined {
  const handled = defaultHandler(probe);
  if (handled === undefined || handled === null || typeof handled !== 'object' || Array.isArray(handled)) return handled;
  return { ...handled, timeoutSeconds: handled['timeoutSeconds'] || 1, periodSeconds: handled['periodSeconds'] || 10, successThreshold: handled['successThreshold'] || 1, failureThreshold: handled['failureThreshold'] || 3 };
}

/** SetDefaults_ObjectFieldSelector: apiVersion v1. */
function defaultFieldRef(holder: Fields): Fields {
  const fieldRef = holder['fieldRef'];
  return fieldRef !== null && typeof fieldRef === 'object' && !Array.isArray(fieldRef) ? { ...holder, fieldRef: { ...fieldRef, apiVersion: fieldRef['apiVersion'] || 'v1' } } : holder;
}

/** The v1 volume defaults: an empty source is emptyDir; secret, configMap, downwardAPI and projected get defaultMode 0644; downward fieldRefs apiVersion v1. */
function defaultVolume(volume: Fields): Fields {
  const result: Fields = { ...volume };
  const sources = Object.keys(result).filter((key) => key !== 'name');
  if (sources.length === 0) result['emptyDir'] = {};
  for (const source of ['secret', 'configMap', 'downwardAPI', 'projected'] as const) {
    const value = result[source];
    if (value === null || typeof value !== 'object' || Array.isArray(value)) continue;
    const defaulted: Fields = { ...value, defaultMode: value['defaultMode'] ?? 420 };
    if (source === 'downwardAPI') defaulted['items'] = records(value['items']).map(defaultFieldRef);
    if (source === 'projected' && Array.isArray(value['sources'])) {
      defaulted['sources'] = records(value['sources']).map((projection) => {
        const downward = fields(projection['downwardAPI']);
        return projection['downwardAPI'] === undefined ? projection : { ...projection, downwardAPI: { ...downward, items: records(downward['items']).map(defaultFieldRef) } };
      });
    }
    result[source] = defaulted;
  }
  return result;
}

function defaultContainer(container: Fields): Fields {
  const result: Fields = { ...container };
  for (const probe of ['livenessProbe', 'readinessProbe', 'startupProbe'] as const) {
    if (result[probe] !== undefined) result[probe] = defaultProbe(result[probe])!;
  }
  const lifecycle = result['lifecycle'];
  if (lifecycle !== null && typeof lifecycle === 'object' && !Array.isArray(lifecycle)) {
    const handlers: Fields = { ...lifecycle };
    for (const hook of ['postStart', 'preStop'] as const) if (handlers[hook] !== undefined) handlers[hook] = defaultHandler(handlers[hook])!;
    result['lifecycle'] = handlers;
  }
  if (Array.isArray(result['env'])) {
    result['env'] = records(result['env']).map((variable) => {
      const valueFrom = variable['valueFrom'];
      return valueFrom !== null && typeof valueFrom === 'object' && !Array.isArray(valueFrom) ? { ...variable, valueFrom: defaultFieldRef(valueFrom) } : variable;
    });
  }
  if (result['terminationMessagePath'] === undefined || result['terminationMessagePath'] === '') result['terminationMessagePath'] = '/dev/termination-log';
  if (result['terminationMessagePolicy'] === undefined || result['terminationMessagePolicy'] === '') result['terminationMessagePolicy'] = 'File';
  if ((result['imagePullPolicy'] === undefined || result['imagePullPolicy'] === '') && typeof result['image'] === 'string') {
    result['imagePullPolicy'] = imagePullPolicyFor(result['image']);
  }
  if (result['resources'] === undefined) result['resources'] = {};
  if (Array.isArray(result['ports'])) {
    result['ports'] = records(result['ports']).map((port) => ({ ...port, protocol: port['protocol'] ?? 'TCP' }));
  }
  return result;
}

/** The tolerations the DefaultTolerationSeconds admission plugin adds (300 s each). */
const defaultTolerations: readonly Fields[] = [
  { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
  { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
];

function fillDefaults(result: Fields, defaults: Fields): void {
  for (const [key, value] of Object.entries(defaults)) if (result[key] === undefined || result[key] === '') result[key] = value;
}

/**
 * The v1 defaults of a pod spec (SetDefaults_PodSpec and the container, probe and volume
 * defaults), which every pod template gets; a Pod adds the pod-only ones (defaultPodSpec).
 */
export function defaultPodTemplateSpec(spec: Fields): Fields {
  const result: Fields = { ...spec };
  fillDefaults(result, {
    restartPolicy: 'Always', dnsPolicy: 'ClusterFirst', terminationGracePeriodSeconds: 30,
    schedulerName: 'default-scheduler', securityContext: {},
  });
  result['containers'] = records(result['containers']).map(defaultContainer);
  if (Array.isArray(result['volumes'])) result['volumes'] = records(result['volumes']).map(defaultVolume);
  if (Array.isArray(result['initContainers'])) result['initContainers'] = records(result['initContainers']).map(defaultContainer);
  return result;
}

/**
 * A Pod's spec: the template defaults, SetDefaults_Pod's and what the ServiceAccount and
 * DefaultTolerationSeconds admission plugins add (priority comes from the Priority plugin,
 * api/admission/priority.ts).
 */
function defaultPodSpec(spec: Fields): Fields {
  const result = defaultPodTemplateSpec(spec);
  fillDefaults(result, { enableServiceLinks: true });
  // ServiceAccount admission: the namespace's default service account.
  const account = typeof result['serviceAccountName'] === 'string' && result['serviceAccountName'] !== '' ? result['serviceAccountName']
    : typeof result['serviceAccount'] === 'string' && result['serviceAccount'] !== '' ? result['serviceAccount'] : 'default';
  result['serviceAccountName'] = account;
  result['serviceAccount'] = account;
  const tolerations = records(result['tolerations']);
  for (const toleration of defaultTolerations) {
    const covered = tolerations.some((existing) => (existing['key'] === toleration['key'] || existing['key'] === undefined || existing['key'] === '')
      && (existing['effect'] === undefined || existing['effect'] === '' || existing['effect'] === 'NoExecute'));
    if (!covered) tolerations.push({ ...toleration });
  }
  result['tolerations'] = tolerations;
  return result;
}

function quantityKeys(container: Fields, part: 'requests' | 'limits'): Fields {
  return fields(fields(container['resources'])[part]);
}

/** qos.GetPodQOS: BestEffort without requests or limits; Guaranteed when every container's cpu and memory limits equal its requests; Burstable otherwise. */
export function podQosClass(spec: Fields): string {
  const containers = [...records(spec['containers']), ...records(spec['initContainers'])];
  const any = containers.some((container) => ['cpu', 'memory'].some((resource) => quantityKeys(container, 'requests')[resource] !== undefined || quantityKeys(container, 'limits')[resource] !== undefined));
  if (!any) return 'BestEffort';
  const guaranteed = containers.every((container) => ['cpu', 'memory'].every((resource) => {
    const limit = quantityKeys(container, 'limits')[resource];
    const request = quantityKeys(container, 'requests')[resource] ?? limit;
    return limit !== undefined && String(limit) === String(request);
  }));
  return guaranteed ? 'Guaranteed' : 'Burstable';
}

const restartPolicies = ['Always', 'OnFailure', 'Never'];
const dnsPolicies = ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'];
const pullPolicies = ['Always', 'IfNotPresent', 'Never'];
const protocols = ['SCTP', 'TCP', 'UDP'];

const dns1123Label = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const dns1123LabelMessage = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const dns1035Label = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;
const dns1035LabelMessage = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

function containerCauses(list: Fields[], path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const names = new Set<string>();
  list.forEach((container, position) => {
    const at = `${path}[${position}]`;
    const name = container['name'];
    if (typeof name !== 'string' || name === '') causes.push(required(`${at}.name`));
    else if (names.has(name)) causes.push({ reason: 'FieldValueDuplicate', message: `Duplicate value: ${JSON.stringify(name)}`, field: `${at}.name` });
    else names.add(name);
    if (typeof name === 'string' && name !== '' && (!dns1123Label.test(name) || name.length > 63)) causes.push(invalidValue(`${at}.name`, name, dns1123LabelMessage));
    if (typeof container['image'] !== 'string' || container['image'] === '') causes.push(required(`${at}.image`));
    const policy = container['imagePullPolicy'];
    if (typeof policy === 'string' && !pullPolicies.includes(policy)) causes.push(unsupported(`${at}.imagePullPolicy`, policy, pullPolicies));
    records(container['ports']).forEach((port, index) => {
      const number = port['containerPort'];
      if (typeof number !== 'number' || number < 1 || number > 65535) causes.push(invalidValue(`${at}.ports[${index}].containerPort`, number ?? 0, 'must be between 1 and 65535, inclusive'));
      if (typeof port['protocol'] === 'string' && !protocols.includes(port['protocol'])) causes.push(unsupported(`${at}.ports[${index}].protocol`, port['protocol'], protocols));
    });
  });
  return causes;
}

/** The pod spec rules every pod and pod template meets; `path` is where the spec is ('spec', 'spec.template.spec'). */
export function podSpecCauses(spec: Fields, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const containers = records(spec['containers']);
  if (containers.length === 0) causes.push(required(`${path}.containers`));
  causes.push(...containerCauses(containers, `${path}.containers`), ...containerCauses(records(spec['initContainers']), `${path}.initContainers`));
  for (const [field, supported] of [['restartPolicy', restartPolicies], ['dnsPolicy', dnsPolicies]] as const) {
    const value = spec[field];
    if (typeof value === 'string' && !supported.includes(value)) causes.push(unsupported(`${path}.${field}`, value, supported));
  }
  const grace = spec['terminationGracePeriodSeconds'];
  if (typeof grace === 'number' && grace < 0) causes.push(invalidValue(`${path}.terminationGracePeriodSeconds`, grace, 'must be greater than or equal to 0'));
  return causes;
}

function podSpecFor(object: KubeObject): Fields {
  return fields(object['spec'] as JsonValue | undefined);
}

/** The pod spec fields an update may change (ValidatePodUpdate), blanked for comparison. */
function mutablePartsCleared(spec: Fields): Fields {
  const clearImages = (list: JsonValue | undefined) => records(list).map((container) => ({ ...container, image: '' }));
  return {
    ...spec, containers: clearImages(spec['containers']), initContainers: clearImages(spec['initContainers']),
    activeDeadlineSeconds: null, tolerations: null, terminationGracePeriodSeconds: null,
  };
}

const podUpdateMessage = 'Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)';

export const podStrategy: Strategy = {
  // kube: a pod is created with POST only; PUT of an absent pod is 404.
  allowCreateOnUpdate: false,
  prepareForCreate(object) {
    const spec = defaultPodSpec(podSpecFor(object));
    object['spec'] = spec;
    const status: Fields = { phase: 'Pending', qosClass: podQosClass(spec) };
    // applySchedulingGatedCondition
    if (records(spec['schedulingGates']).length > 0) {
      status['conditions'] = [{ type: 'PodScheduled', status: 'False', lastProbeTime: null, lastTransitionTime: null, reason: 'SchedulingGated', message: 'Scheduling is blocked due to non-empty scheduling gates' }];
    }
    object['status'] = status;
  },
  prepareForUpdate(object, old) {
    keepStatus(object, old);
    const spec = defaultPodSpec(podSpecFor(object));
    // What the Priority admission plugin computed at create stays when an update leaves it out.
    const stored = podSpecFor(old);
    for (const field of ['priority', 'preemptionPolicy']) if (spec[field] === undefined && stored[field] !== undefined) spec[field] = stored[field]!;
    object['spec'] = spec;
  },
  validate: (object) => podSpecCauses(podSpecFor(object), 'spec'),
  validateUpdate(object, old) {
    const before = mutablePartsCleared(podSpecFor(old));
    const after = mutablePartsCleared(podSpecFor(object));
    return JSON.stringify(before) === JSON.stringify(after) ? [] : [{ reason: 'FieldValueForbidden', message: podUpdateMessage, field: 'spec' }];
  },
};

// --- nodes --------------------------------------------------------------------------------

export const nodeStrategy: Strategy = {
  // kube: PUT of an absent node is 404.
  allowCreateOnUpdate: false,
  // Nodes may carry status on create (the kubelet registers itself with it).
  prepareForUpdate: keepStatus,
};

// --- services -----------------------------------------------------------------------------

const serviceTypes = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];

function defaultServiceSpec(spec: Fields, old?: Fields): Fields {
  const result: Fields = { ...spec };
  if (result['type'] === undefined || result['type'] === '') result['type'] = 'ClusterIP';
  const type = result['type'];
  if (result['sessionAffinity'] === undefined || result['sessionAffinity'] === '') result['sessionAffinity'] = 'None';
  if (result['sessionAffinity'] === 'ClientIP' && result['sessionAffinityConfig'] === undefined) {
    result['sessionAffinityConfig'] = { clientIP: { timeoutSeconds: 10800 } };
  }
  const oldPorts = records(old?.['ports']);
  result['ports'] = records(result['ports']).map((port, position) => {
    const defaulted: Fields = { ...port, protocol: port['protocol'] ?? 'TCP' };
    if (defaulted['targetPort'] === undefined || defaulted['targetPort'] === 0 || defaulted['targetPort'] === '') defaulted['targetPort'] = port['port'] ?? 0;
    // An update that leaves an allocated node port out keeps it (patchAllocatedValues).
    const previous = oldPorts.find((candidate) => candidate['port'] === port['port'] && (candidate['protocol'] ?? 'TCP') === defaulted['protocol']) ?? oldPorts[position];
    if ((defaulted['nodePort'] === undefined || defaulted['nodePort'] === 0) && typeof previous?.['nodePort'] === 'number' && (type === 'NodePort' || type === 'LoadBalancer')) {
      defaulted['nodePort'] = previous['nodePort'];
    }
    if (type !== 'NodePort' && type !== 'LoadBalancer') delete defaulted['nodePort'];
    return defaulted;
  });
  if (type === 'ExternalName') {
    delete result['clusterIP'];
    delete result['clusterIPs'];
  } else {
    const ips = Array.isArray(result['clusterIPs']) ? result['clusterIPs'] : [];
    if ((result['clusterIP'] === undefined || result['clusterIP'] === '') && typeof ips[0] === 'string') result['clusterIP'] = ips[0];
    if ((result['clusterIP'] === undefined || result['clusterIP'] === '') && typeof old?.['clusterIP'] === 'string') result['clusterIP'] = old['clusterIP'];
    if (result['clusterIP'] === undefined) result['clusterIP'] = '';
    if (result['clusterIP'] === 'None') result['clusterIPs'] = ['None'];
    if (result['internalTrafficPolicy'] === undefined) result['internalTrafficPolicy'] = 'Cluster';
    if (result['ipFamilies'] === undefined) result['ipFamilies'] = ['IPv4'];
    if (result['ipFamilyPolicy'] === undefined) result['ipFamilyPolicy'] = 'SingleStack';
  }
  if (type === 'NodePort' || type === 'LoadBalancer') {
    if (result['externalTrafficPolicy'] === undefined || result['externalTrafficPolicy'] === '') result['externalTrafficPolicy'] = 'Cluster';
  }
  if (type === 'LoadBalancer' && result['allocateLoadBalancerNodePorts'] === undefined) result['allocateLoadBalancerNodePorts'] = true;
  return result;
}

const ipv4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

export const serviceStrategy: Strategy = {
  // kube: PUT creates an absent service.
  allowCreateOnUpdate: true,
  prepareForCreate(object) {
    object['spec'] = defaultServiceSpec(fields(object['spec'] as JsonValue | undefined));
    object['status'] = { loadBalancer: {} };
  },
  prepareForUpdate(object, old) {
    keepStatus(object, old);
    object['spec'] = defaultServiceSpec(fields(object['spec'] as JsonValue | undefined), fields(old['spec'] as JsonValue | undefined));
  },
  validate(object) {
    const spec = fields(object['spec'] as JsonValue | undefined);
    const causes: StatusCause[] = [];
    const type = spec['type'];
    if (typeof type === 'string' && !serviceTypes.includes(type)) causes.push(unsupported('spec.type', type, serviceTypes));
    const ports = records(spec['ports']);
    const headless = spec['clusterIP'] === 'None';
    if (type === 'ExternalName') {
      if (typeof spec['externalName'] !== 'string' || spec['externalName'] === '') causes.push(required('spec.externalName'));
    } else if (ports.length === 0 && !headless) {
      causes.push(required('spec.ports'));
    }
    const names = new Set<string>();
    ports.forEach((port, position) => {
      const at = `spec.ports[${position}]`;
      const number = port['port'];
      if (typeof number !== 'number' || number < 1 || number > 65535) causes.push(invalidValue(`${at}.port`, number ?? 0, 'must be between 1 and 65535, inclusive'));
      if (ports.length > 1 && (typeof port['name'] !== 'string' || port['name'] === '')) causes.push(required(`${at}.name`));
      if (typeof port['name'] === 'string' && port['name'] !== '') {
        if (names.has(port['name'])) causes.push({ reason: 'FieldValueDuplicate', message: `Duplicate value: ${JSON.stringify(port['name'])}`, field: `${at}.name` });
        names.add(port['name']);
      }
      if (typeof port['protocol'] === 'string' && !protocols.includes(port['protocol'])) causes.push(unsupported(`${at}.protocol`, port['protocol'], protocols));
      if (type === 'ClusterIP' && typeof port['nodePort'] === 'number' && port['nodePort'] !== 0) {
        causes.push({ reason: 'FieldValueForbidden', message: 'Forbidden: may not be used when `type` is \'ClusterIP\'', field: `${at}.nodePort` });
      }
    });
    // Service names are DNS-1035 labels (they become DNS names and environment variables).
    const name = object.metadata.name ?? '';
    if (name !== '' && !dns1035Label.test(name)) causes.push(invalidValue('metadata.name', name, dns1035LabelMessage));
    const clusterIp = spec['clusterIP'];
    if (typeof clusterIp === 'string' && clusterIp !== '' && clusterIp !== 'None' && !ipv4.test(clusterIp)) {
      causes.push(invalidValue('spec.clusterIPs[0]', clusterIp, 'must be empty, \'None\', or a valid IP address'));
    }
    if (headless && (type === 'NodePort' || type === 'LoadBalancer')) {
      causes.push(invalidValue('spec.clusterIPs[0]', 'None', `may not be set to 'None' for ${String(type)} services`));
    }
    const affinity = spec['sessionAffinity'];
    if (typeof affinity === 'string' && affinity !== 'None' && affinity !== 'ClientIP') causes.push(unsupported('spec.sessionAffinity', affinity, ['ClientIP', 'None']));
    return causes;
  },
  validateUpdate(object, old) {
    const before = fields(old['spec'] as JsonValue | undefined)['clusterIP'];
    const after = fields(object['spec'] as JsonValue | undefined)['clusterIP'];
    const type = fields(object['spec'] as JsonValue | undefined)['type'];
    if (type === 'ExternalName' || typeof before !== 'string' || before === '' || after === before) return [];
    return [{ reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify([after ?? ''])}: may not change once set`, field: 'spec.clusterIPs[0]' }];
  },
};

// --- endpoints ----------------------------------------------------------------------------

export const endpointsStrategy: Strategy = {
  // kube: PUT creates absent endpoints.
  allowCreateOnUpdate: true,
  prepareForCreate(object) {
    defaultEndpointPorts(object);
  },
  prepareForUpdate(object) {
    defaultEndpointPorts(object);
  },
  validate(object) {
    const causes: StatusCause[] = [];
    records(object['subsets'] as JsonValue | undefined).forEach((subset, position) => {
      for (const part of ['addresses', 'notReadyAddresses'] as const) {
        records(subset[part]).forEach((address, index) => {
          const ip = address['ip'];
          if (typeof ip !== 'string' || ip === '') causes.push(required(`subsets[${position}].${part}[${index}].ip`));
        });
      }
      records(subset['ports']).forEach((port, index) => {
        const number = port['port'];
        if (typeof number !== 'number' || number < 1 || number > 65535) causes.push(invalidValue(`subsets[${position}].ports[${index}].port`, number ?? 0, 'must be between 1 and 65535, inclusive'));
      });
    });
    return causes;
  },
};

function defaultEndpointPorts(object: KubeObject): void {
  if (!Array.isArray(object['subsets'])) return;
  object['subsets'] = records(object['subsets'] as JsonValue).map((subset) => (Array.isArray(subset['ports'])
    ? { ...subset, ports: records(subset['ports']).map((port) => ({ ...port, protocol: port['protocol'] ?? 'TCP' })) }
    : subset));
}

// --- events: core/v1 and events.k8s.io/v1 (one stored kind) ---------------------------------
// kube validates the internal (core) Event with the request's group version
// (pkg/apis/core/validation/events.go): every write passes the legacy rules; a create or update
// through events.k8s.io/v1 adds the strict ones. Field paths are the internal type's, whichever
// group the request came through, as kube reports them.

/** ReportingInstanceLengthLimit, ActionLengthLimit, ReasonLengthLimit, NoteLengthLimit. */
const eventFieldLimits = { reportingInstance: 128, action: 128, reason: 128, message: 1024 } as const;

function eventText(event: Fields, name: string): string {
  const value = event[name];
  return typeof value === 'string' ? value : '';
}

function eventTimeSet(value: JsonValue | undefined): boolean {
  return typeof value === 'string' && value !== '';
}

function sameValue(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object' || Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, position) => sameValue(item, b[position]));
  const left = a as Fields;
  const right = b as Fields;
  const keys = new Set([...Object.keys(left), ...Object.keys(right)]);
  return [...keys].every((key) => sameValue(left[key], right[key]));
}

function tooLong(event: Fields, name: keyof typeof eventFieldLimits, field: string): StatusCause[] {
  const limit = eventFieldLimits[name];
  return Buffer.byteLength(eventText(event, name)) > limit ? [invalidValue(field, '', `can have at most ${limit} characters`)] : [];
}

/** legacyValidateEvent, over the core form; `namespace` is the event's own. */
function legacyEventCauses(event: Fields, namespace: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const involvedNamespace = eventText(fields(event['involvedObject']), 'namespace');
  const mismatch = invalidValue('involvedObject.namespace', involvedNamespace, 'does not match event.namespace');
  if (!eventTimeSet(event['eventTime'])) {
    // Old-style events: the namespaces agree ("default" also takes an event about a cluster-scoped object).
    if (involvedNamespace === '' ? namespace !== '' && namespace !== 'default' : namespace !== involvedNamespace) causes.push(mismatch);
    return causes;
  }
  if (involvedNamespace === '' && namespace !== 'default' && namespace !== 'kube-system') causes.push(mismatch);
  const controller = eventText(event, 'reportingComponent');
  if (controller === '') causes.push(required('reportingController'));
  for (const problem of qualifiedNameProblems(controller)) causes.push(invalidValue('reportingController', controller, problem));
  if (eventText(event, 'reportingInstance') === '') causes.push(required('reportingInstance'));
  causes.push(...tooLong(event, 'reportingInstance', 'reportingInstance'));
  if (eventText(event, 'action') === '') causes.push(required('action'));
  causes.push(...tooLong(event, 'action', 'action'));
  if (eventText(event, 'reason') === '') causes.push(required('reason'));
  causes.push(...tooLong(event, 'reason', 'reason'));
  causes.push(...tooLong(event, 'message', 'message'));
  return causes;
}

/** validateV1EventSeries. */
function eventSeriesCauses(event: Fields): StatusCause[] {
  if (event['series'] === undefined || event['series'] === null) return [];
  const series = fields(event['series']);
  const count = typeof series['count'] === 'number' ? series['count'] : 0;
  return [
    ...(count < 2 ? [invalidValue('series.count', '', 'should be at least 2')] : []),
    ...(eventTimeSet(series['lastObservedTime']) ? [] : [required('series.lastObservedTime')]),
  ];
}

/** ValidateEventCreate's rules for events.k8s.io/v1 beyond the legacy ones. */
function eventsV1CreateCauses(event: Fields): StatusCause[] {
  const causes = eventSeriesCauses(event);
  if (!eventTimeSet(event['eventTime'])) causes.push(required('eventTime'));
  const type = eventText(event, 'type');
  if (type !== 'Normal' && type !== 'Warning') causes.push(invalidValue('type', '', `has invalid value: ${type}`));
  for (const field of ['firstTimestamp', 'lastTimestamp']) {
    if (eventTimeSet(event[field])) causes.push(invalidValue(field, '', 'needs to be unset'));
  }
  if (typeof event['count'] === 'number' && event['count'] !== 0) causes.push(invalidValue('count', '', 'needs to be unset'));
  const source = fields(event['source']);
  if (eventText(source, 'component') !== '' || eventText(source, 'host') !== '') causes.push(invalidValue('source', '', 'needs to be unset'));
  return causes;
}

/** [core field, the path kube reports] of what an events.k8s.io/v1 update may not change. */
const eventsV1Immutable: readonly (readonly [string, string])[] = [
  ['involvedObject', 'involvedObject'], ['reason', 'reason'], ['message', 'message'], ['source', 'source'],
  ['firstTimestamp', 'firstTimestamp'], ['lastTimestamp', 'lastTimestamp'], ['count', 'count'], ['type', 'type'],
  ['eventTime', 'eventTime'], ['action', 'action'], ['related', 'related'],
  ['reportingComponent', 'reportingController'], ['reportingInstance', 'reportingInstance'],
];

/** ValidateEventUpdate's rules for events.k8s.io/v1 beyond the legacy ones. */
function eventsV1UpdateCauses(event: Fields, old: Fields): StatusCause[] {
  const causes = sameValue(event['series'], old['series']) ? [] : eventSeriesCauses(event);
  for (const [field, path] of eventsV1Immutable) {
    if (!sameValue(event[field], old[field])) causes.push(invalidValue(path, event[field] ?? '', 'field is immutable'));
  }
  return causes;
}

function namespaceOf(object: KubeObject): string {
  return object.metadata.namespace ?? '';
}

/** A core/v1 Event: the legacy rules on every write (ValidateEventCreate/Update for core/v1). */
export const coreEventStrategy: Strategy = {
  // kube: PUT creates an absent event.
  allowCreateOnUpdate: true,
  validate: (object) => legacyEventCauses(object as Fields, namespaceOf(object)),
};

/** An events.k8s.io/v1 Event: validated as its core form, with the strict create and update rules. */
export const eventsV1Strategy: Strategy = {
  // kube: PUT creates an absent event (one events storage).
  allowCreateOnUpdate: true,
  validate: (object) => legacyEventCauses(coreViewOf(object) as Fields, namespaceOf(object)),
  validateCreate: (object) => eventsV1CreateCauses(coreViewOf(object) as Fields),
  validateUpdate: (object, old) => eventsV1UpdateCauses(coreViewOf(object) as Fields, coreViewOf(old) as Fields),
};
