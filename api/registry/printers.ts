// Owns: the Table cells of the workload and networking kinds, computed as kube-apiserver's
// built-in printers compute them (pkg/printers/internalversion/printers.go: printPod,
// printNode, printService, formatEndpoints, printEvent for events of both groups). Pure functions of
// the object; `since` renders a timestamp as an age.
type Fields = Record<string, unknown>;

export function nested(object: unknown, ...path: (string | number)[]): unknown {
  let current: unknown = object;
  for (const part of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string | number, unknown>)[part];
  }
  return current;
}

export function stringOf(value: unknown): string {
  return typeof value === 'string' ? value : value === undefined || value === null ? '' : String(value);
}

function listOf(value: unknown): Fields[] {
  return Array.isArray(value) ? value.filter((item): item is Fields => item !== null && typeof item === 'object') : [];
}

const none = '<none>';

function orNone(value: string): string {
  return value === '' ? none : value;
}

/** labels.FormatLabels: "k=v,k2=v2" sorted by key, "<none>" when empty. */
export function formatLabels(map: unknown): string {
  if (map === null || typeof map !== 'object') return none;
  const entries = Object.entries(map as Record<string, unknown>).sort(([left], [right]) => (left < right ? -1 : left > right ? 1 : 0));
  return entries.length === 0 ? none : entries.map(([key, value]) => `${key}=${stringOf(value)}`).join(',');
}

function terminalPhase(phase: string): boolean {
  return phase === 'Succeeded' || phase === 'Failed';
}

function hasPodReadyCondition(object: Fields): boolean {
  return listOf(nested(object, 'status', 'conditions')).some((condition) => condition['type'] === 'Ready' && condition['status'] === 'True');
}

export interface PodSummary {
  readonly ready: string;
  readonly status: string;
  readonly restarts: string;
}

/** printPod's Ready, Status and Restarts cells. */
export function podSummary(object: Fields, since: (timestamp: unknown) => string): PodSummary {
  const containers = listOf(nested(object, 'spec', 'containers'));
  const initContainers = listOf(nested(object, 'spec', 'initContainers'));
  const phase = stringOf(nested(object, 'status', 'phase'));
  let reason = stringOf(nested(object, 'status', 'reason')) || phase;
  let restarts = 0;
  let readyContainers = 0;
  let lastRestart = '';
  const noteRestart = (status: Fields) => {
    const finished = stringOf(nested(status, 'lastState', 'terminated', 'finishedAt'));
    if (finished !== '' && (lastRestart === '' || Date.parse(finished) > Date.parse(lastRestart))) lastRestart = finished;
  };
  const gated = listOf(nested(object, 'status', 'conditions'))
    .some((condition) => condition['type'] === 'PodScheduled' && condition['reason'] === 'SchedulingGated');
  if (gated) reason = 'SchedulingGated';
  const sidecars = new Set(initContainers.filter((container) => container['restartPolicy'] === 'Always').map((container) => stringOf(container['name'])));
  let initializing = false;
  listOf(nested(object, 'status', 'initContainerStatuses')).forEach((status, position) => {
    restarts += Number(status['restartCount'] ?? 0);
    noteRestart(status);
    const terminated = nested(status, 'state', 'terminated') as Fields | undefined;
    const waiting = nested(status, 'state', 'waiting') as Fields | undefined;
    if (terminated && terminated['exitCode'] === 0) return;
    if (sidecars.has(stringOf(status['name'])) && nested(status, 'started') === true) return;
    if (initializing) return;
    initializing = true;
    if (terminated) {
      reason = stringOf(terminated['reason']) !== '' ? `Init:${stringOf(terminated['reason'])}`
        : Number(terminated['signal'] ?? 0) !== 0 ? `Init:Signal:${Number(terminated['signal'])}` : `Init:ExitCode:${Number(terminated['exitCode'] ?? 0)}`;
    } else if (waiting && stringOf(waiting['reason']) !== '' && waiting['reason'] !== 'PodInitializing') {
      reason = `Init:${stringOf(waiting['reason'])}`;
    } else {
      reason = `Init:${position}/${initContainers.length}`;
    }
  });
  if (!initializing || terminalPhase(phase)) {
    let running = false;
    const statuses = listOf(nested(object, 'status', 'containerStatuses'));
    for (let position = statuses.length - 1; position >= 0; position--) {
      const status = statuses[position]!;
      restarts += Number(status['restartCount'] ?? 0);
      noteRestart(status);
      const terminated = nested(status, 'state', 'terminated') as Fields | undefined;
      const waiting = nested(status, 'state', 'waiting') as Fields | undefined;
      if (waiting && stringOf(waiting['reason']) !== '') reason = stringOf(waiting['reason']);
      else if (terminated && stringOf(terminated['reason']) !== '') reason = stringOf(terminated['reason']);
      else if (terminated) reason = Number(terminated['signal'] ?? 0) !== 0 ? `Signal:${Number(terminated['signal'])}` : `ExitCode:${Number(terminated['exitCode'] ?? 0)}`;
      else if (status['ready'] === true && nested(status, 'state', 'running') !== undefined) {
        running = true;
        readyContainers++;
      }
    }
    if (reason === 'Completed' && running) reason = hasPodReadyCondition(object) ? 'Running' : 'NotReady';
  }
  const deleting = nested(object, 'metadata', 'deletionTimestamp') !== undefined;
  if (deleting && stringOf(nested(object, 'status', 'reason')) === 'NodeLost') reason = 'Unknown';
  else if (deleting && !terminalPhase(phase)) reason = 'Terminating';
  const restartsText = restarts !== 0 && lastRestart !== '' ? `${restarts} (${since(lastRestart)} ago)` : String(restarts);
  const total = containers.length + [...sidecars].length;
  return { ready: `${readyContainers}/${total}`, status: reason, restarts: restartsText };
}

export function podIp(object: Fields): string {
  const ips = listOf(nested(object, 'status', 'podIPs'));
  return orNone(stringOf(ips[0]?.['ip'] ?? nested(object, 'status', 'podIP')));
}

export function podReadinessGates(object: Fields): string {
  const gates = listOf(nested(object, 'spec', 'readinessGates'));
  if (gates.length === 0) return none;
  const conditions = listOf(nested(object, 'status', 'conditions'));
  const met = gates.filter((gate) => conditions.some((condition) => condition['type'] === gate['conditionType'] && condition['status'] === 'True')).length;
  return `${met}/${gates.length}`;
}

/** printNode's Status: Ready / NotReady / Unknown, then SchedulingDisabled when cordoned. */
export function nodeStatus(object: Fields): string {
  const ready = listOf(nested(object, 'status', 'conditions')).filter((condition) => condition['type'] === 'Ready').at(-1);
  const status = [ready === undefined ? 'Unknown' : ready['status'] === 'True' ? 'Ready' : 'NotReady'];
  if (nested(object, 'spec', 'unschedulable') === true) status.push('SchedulingDisabled');
  return status.join(',');
}

/** findNodeRoles: node-role.kubernetes.io/<role> keys and the kubernetes.io/role value, sorted. */
export function nodeRoles(object: Fields): string {
  const labels = (nested(object, 'metadata', 'labels') ?? {}) as Record<string, string>;
  const roles = new Set<string>();
  for (const [key, value] of Object.entries(labels)) {
    if (key.startsWith('node-role.kubernetes.io/')) {
      const role = key.slice('node-role.kubernetes.io/'.length);
      if (role !== '') roles.add(role);
    } else if (key === 'kubernetes.io/role' && value !== '') {
      roles.add(value);
    }
  }
  return roles.size === 0 ? none : [...roles].sort().join(',');
}

export function nodeAddress(object: Fields, type: 'InternalIP' | 'ExternalIP'): string {
  const address = listOf(nested(object, 'status', 'addresses')).find((candidate) => candidate['type'] === type);
  return orNone(stringOf(address?.['address']));
}

export function nodeInfo(object: Fields, field: string): string {
  const value = stringOf(nested(object, 'status', 'nodeInfo', field));
  return value === '' ? '<unknown>' : value;
}

/** printService's External-IP: by type, "<pending>" for a load balancer without ingress. */
export function serviceExternalIp(object: Fields): string {
  const type = stringOf(nested(object, 'spec', 'type'));
  const externalIps = (nested(object, 'spec', 'externalIPs') ?? []) as string[];
  switch (type) {
    case 'ClusterIP':
    case 'NodePort':
      return externalIps.length > 0 ? externalIps.join(',') : none;
    case 'LoadBalancer': {
      const ingress = listOf(nested(object, 'status', 'loadBalancer', 'ingress'))
        .map((entry) => stringOf(entry['ip']) || stringOf(entry['hostname'])).filter((value) => value !== '');
      const all = [...ingress, ...externalIps];
      return all.length > 0 ? all.join(',') : '<pending>';
    }
    case 'ExternalName':
      return stringOf(nested(object, 'spec', 'externalName'));
    default:
      return '<unknown>';
  }
}

export function serviceClusterIp(object: Fields): string {
  const ips = (nested(object, 'spec', 'clusterIPs') ?? []) as string[];
  return orNone(stringOf(ips[0] ?? nested(object, 'spec', 'clusterIP')));
}

/** makePortString: "80/TCP", "80:30080/TCP", comma-joined; "<none>" without ports. */
export function servicePorts(object: Fields): string {
  const ports = listOf(nested(object, 'spec', 'ports'));
  if (ports.length === 0) return none;
  return ports.map((port) => {
    const nodePort = Number(port['nodePort'] ?? 0);
    const protocol = stringOf(port['protocol']);
    return nodePort > 0 ? `${stringOf(port['port'])}:${nodePort}/${protocol}` : `${stringOf(port['port'])}/${protocol}`;
  }).join(',');
}

/** formatEndpoints: up to three ip:port (or ip for port-less subsets), then " + N more...". */
export function endpointsCell(object: Fields): string {
  const subsets = listOf(object['subsets']);
  if (subsets.length === 0) return none;
  const max = 3;
  const list: string[] = [];
  let count = 0;
  let more = false;
  const add = (entry: string) => {
    if (list.length === max) more = true;
    else list.push(entry);
  };
  for (const subset of subsets) {
    const addresses = listOf(subset['addresses']);
    const ports = listOf(subset['ports']);
    if (ports.length === 0) {
      count += addresses.length;
      for (const address of addresses) add(stringOf(address['ip']));
      continue;
    }
    for (const port of ports) {
      count += addresses.length;
      for (const address of addresses) {
        const ip = stringOf(address['ip']);
        add(`${ip.includes(':') ? `[${ip}]` : ip}:${stringOf(port['port'])}`);
      }
    }
  }
  const joined = list.join(',');
  return more ? `${joined} + ${count - max} more...` : joined;
}

/** What printEvent shows of a core/v1 Event (both groups' events print from the internal core type). */
export interface EventSummary {
  readonly lastSeen: string;
  readonly firstSeen: string;
  readonly count: number;
  readonly object: string;
  readonly source: string;
}

function timeSet(value: unknown): boolean {
  return typeof value === 'string' && value !== '';
}

/**
 * printEvent: First Seen is firstTimestamp, else eventTime; Last Seen is lastTimestamp, else
 * First Seen, or the series' lastObservedTime; Count is the series' count, else count, else 1
 * (singleton events of the new API have none); the object is "kind/name" (lowercased kind);
 * the source is formatEventSource (source, else the reporting controller and instance).
 */
export function eventSummary(event: Fields, since: (timestamp: unknown) => string): EventSummary {
  const firstSeen = since(timeSet(event['firstTimestamp']) ? event['firstTimestamp'] : event['eventTime']);
  const series = event['series'];
  const hasSeries = series !== null && typeof series === 'object' && !Array.isArray(series);
  const count = typeof event['count'] === 'number' ? event['count'] : 0;
  const kind = stringOf(nested(event, 'involvedObject', 'kind')).toLowerCase();
  const name = stringOf(nested(event, 'involvedObject', 'name'));
  const component = stringOf(nested(event, 'source', 'component')) || stringOf(event['reportingComponent']);
  const host = stringOf(nested(event, 'source', 'host')) || stringOf(event['reportingInstance']);
  const seriesCount = nested(series, 'count');
  return {
    firstSeen,
    lastSeen: hasSeries ? since(nested(series, 'lastObservedTime')) : timeSet(event['lastTimestamp']) ? since(event['lastTimestamp']) : firstSeen,
    count: hasSeries ? (typeof seriesCount === 'number' ? seriesCount : 0) : count === 0 ? 1 : count,
    object: name === '' ? kind : `${kind}/${name}`,
    source: host === '' ? component : `${component}, ${host}`,
  };
}

/** kube's RoleBinding/ClusterRoleBinding Role column: `<roleRef.kind>/<roleRef.name>`. */
export function roleRefCell(object: Fields): string {
  return `${stringOf(nested(object, 'roleRef', 'kind'))}/${stringOf(nested(object, 'roleRef', 'name'))}`;
}

/** kube's SubjectsStrings for the wide binding columns: users, groups, or service accounts (`ns/name`), joined with ", ". */
export function bindingSubjects(object: Fields, kind: 'User' | 'Group' | 'ServiceAccount'): string {
  const subjects = nested(object, 'subjects');
  if (!Array.isArray(subjects)) return '';
  return subjects
    .filter((subject): subject is Fields => subject !== null && typeof subject === 'object' && (subject as Fields)['kind'] === kind)
    .map((subject) => {
      const name = stringOf(subject['name']);
      const namespace = stringOf(subject['namespace']);
      return kind === 'ServiceAccount' && namespace !== '' ? `${namespace}/${name}` : name;
    })
    .join(', ');
}

function labelSelectorRequirement(expression: Fields): string {
  const key = stringOf(expression['key']);
  const values = Array.isArray(expression['values']) ? expression['values'].map(stringOf).sort() : [];
  switch (expression['operator']) {
    case 'In': return `${key} in (${values.join(',')})`;
    case 'NotIn': return `${key} notin (${values.join(',')})`;
    case 'Exists': return key;
    case 'DoesNotExist': return `!${key}`;
    default: return key;
  }
}

/** A label selector as kubectl writes one ("app=web,tier in (a,b)"), sorted by key; "<none>" when it selects everything. */
export function formatLabelSelector(selector: unknown): string {
  if (selector === null || typeof selector !== 'object') return none;
  const matchLabels = (nested(selector, 'matchLabels') ?? {}) as Record<string, unknown>;
  const requirements = [
    ...Object.entries(matchLabels).map(([key, value]) => ({ key, text: `${key}=${stringOf(value)}` })),
    ...listOf(nested(selector, 'matchExpressions')).map((expression) => ({ key: stringOf(expression['key']), text: labelSelectorRequirement(expression) })),
  ].sort((left, right) => (left.key < right.key ? -1 : left.key > right.key ? 1 : 0));
  return requirements.length === 0 ? none : requirements.map((requirement) => requirement.text).join(',');
}

/** A pod template's container names or images, comma-joined (the wide Containers and Images cells of the workload printers). */
export function templateContainers(object: Fields, field: 'name' | 'image'): string {
  return listOf(nested(object, 'spec', 'template', 'spec', 'containers')).map((container) => stringOf(container[field])).join(',');
}

/** printDeployment's Ready cell: ready replicas over desired replicas. */
export function deploymentReady(object: Fields): string {
  return `${Number(nested(object, 'status', 'readyReplicas') ?? 0)}/${Number(nested(object, 'spec', 'replicas') ?? 0)}`;
}

// --- apps/v1 ReplicaSets, StatefulSets, DaemonSets, ControllerRevisions; core/v1
// ReplicationControllers and PodTemplates (printReplicaSet, printStatefulSet, printDaemonSet,
// printControllerRevision, printReplicationController, printPodTemplate) ---

/** printStatefulSet's Ready cell: ready replicas over desired replicas. */
export function statefulSetReady(object: Fields): string {
  return `${Number(nested(object, 'status', 'readyReplicas') ?? 0)}/${Number(nested(object, 'spec', 'replicas') ?? 0)}`;
}

/** A status or spec count as the integer cells print it (0 when unset). */
export function countCell(object: Fields, ...path: string[]): number {
  const value = nested(object, ...path);
  return typeof value === 'number' ? value : 0;
}

/** A PodTemplate's container names or images, comma-joined (its template is at the top level). */
export function podTemplateContainers(object: Fields, field: 'name' | 'image'): string {
  return listOf(nested(object, 'template', 'spec', 'containers')).map((container) => stringOf(container[field])).join(',');
}

/**
 * printControllerRevision's Controller cell: the controlling owner as `kind.group/name`
 * (lowercased, formatResourceName of its GroupKind), "<none>" without a controller.
 */
export function controllerRevisionController(object: Fields): string {
  const owner = listOf(nested(object, 'metadata', 'ownerReferences')).find((reference) => reference['controller'] === true);
  if (owner === undefined) return none;
  const apiVersion = stringOf(owner['apiVersion']);
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.indexOf('/')) : '';
  const kind = stringOf(owner['kind']);
  const name = stringOf(owner['name']);
  if (group === '' && kind === '') return name;
  return `${(group === '' ? kind : `${kind}.${group}`).toLowerCase()}/${name}`;
}
