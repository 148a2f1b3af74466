// Owns: the pod subresources that are not a part of the object: `eviction` (POST a policy/v1
// Eviction: once the pod's PodDisruptionBudget allows it (endpoints/eviction.ts), the pod is
// deleted honouring the DeleteOptions it carries, gracefully as a DELETE), `binding` (POST a
// Binding: the pod is assigned to a node, as a scheduler does), `log` (GET) and the
// streaming ones (`exec`, `attach`, `portforward`: their checks and errors, see handleStream). There
// are no kubelets behind kstore, so `log` answers what kube-apiserver answers before any kubelet
// is involved: the container checks (400), an empty log for a pod no node has been assigned
// (kube's LogLocation returns no location and the stream is empty), 404 when the assigned node
// does not exist, and otherwise the failure kube-apiserver reports when it cannot reach the
// node's kubelet (500), saying why.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { JsonValue, KubeObject, Preconditions, PropagationPolicy } from '../../actors/index.ts';
import { decodeBody } from '../negotiation.ts';
import { deletionGracePeriod } from '../../actors/index.ts';
import { badRequest, conflict, internalError, invalid, notFound } from '../status.ts';
import type { EndpointContext, Query } from './context.ts';
import { causeOf, isDryRun, queryString, requestBody, respond } from './context.ts';
import { writeDelete, writeRequestOf, writeUpdate } from './write-path.ts';
import { expectObject } from './results.ts';
import { admitEviction } from './eviction.ts';
import { checkSubresource } from './subresource.ts';
import { objectKey } from './target.ts';
import { findKind } from '../registry/kinds.ts';
import type { ResourceKind } from '../registry/kinds.ts';
import type { Target } from './target.ts';

type Fields = Record<string, unknown>;

function isFields(value: unknown): value is Fields {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

async function currentPod(target: Target, context: EndpointContext): Promise<KubeObject> {
  await context.store.readIndex();
  const pod = context.store.get(objectKey(target, target.name!));
  if (!pod) throw notFound({ group: '', resource: 'pods' }, target.name!);
  return pod;
}

const evictionVersions = ['policy/v1', 'policy/v1beta1'];
const propagationPolicies = ['Orphan', 'Background', 'Foreground'];

function readEviction(request: FastifyRequest, target: Target): { readonly options: Fields } {
  const raw = requestBody(request);
  const body = raw.length === 0 ? {} : decodeBody(request.headers['content-type'], raw);
  if (!isFields(body)) throw badRequest('the body of an eviction must be an Eviction object');
  const apiVersion = body['apiVersion'] ?? 'policy/v1';
  const kind = body['kind'] ?? 'Eviction';
  if (kind !== 'Eviction' || !evictionVersions.includes(String(apiVersion))) {
    throw badRequest(`the kind in the data (${String(apiVersion)}, Kind=${String(kind)}) is not an Eviction (policy/v1)`);
  }
  const metadata = isFields(body['metadata']) ? body['metadata'] : {};
  // EvictionREST.Create: the Eviction's name must be the pod's.
  if (metadata['name'] !== undefined && metadata['name'] !== target.name) {
    throw badRequest('name in URL does not match name in Eviction object');
  }
  const options = body['deleteOptions'] ?? {};
  if (!isFields(options)) throw badRequest('Eviction.deleteOptions must be a DeleteOptions object');
  return { options };
}

/**
 * POST pods/<name>/eviction: the pod's PodDisruptionBudget is consulted (and its status
 * decremented) first, as kube's EvictionREST does (endpoints/eviction.ts); then the pod is
 * deleted with the Eviction's DeleteOptions.
 */
export async function handleEviction(request: FastifyRequest, reply: FastifyReply, target: Target, context: EndpointContext): Promise<FastifyReply> {
  checkSubresource(target, 'create');
  const { options } = readEviction(request, target);
  const pod = await currentPod(target, context);
  const preconditions = options['preconditions'];
  if (preconditions !== undefined && !isFields(preconditions)) throw badRequest('DeleteOptions.preconditions must be an object');
  const policy = options['propagationPolicy'];
  if (policy !== undefined && (typeof policy !== 'string' || !propagationPolicies.includes(policy))) {
    throw invalid('meta.k8s.io', 'DeleteOptions', '', [{ reason: 'FieldValueNotSupported', field: 'propagationPolicy', message: `Unsupported value: ${JSON.stringify(policy)}: supported values: "Foreground", "Background", "Orphan", "nil"` }]);
  }
  const grace = options['gracePeriodSeconds'];
  if (grace !== undefined && grace !== null && !Number.isInteger(grace)) throw badRequest(`gracePeriodSeconds must be an integer, got ${JSON.stringify(grace)}`);
  const orphan = options['orphanDependents'];
  const effectivePolicy = (policy ?? (orphan === true ? 'Orphan' : undefined)) as PropagationPolicy | undefined;
  const optionsDryRun = Array.isArray(options['dryRun']) ? (options['dryRun'] as JsonValue[]) : [];
  const dryRun = isDryRun({ dryRun: optionsDryRun.length > 0 ? optionsDryRun.map(String) : request.requestInfo.options.dryRun }, 'DeleteOptions');
  const success = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 };
  const pinned = await admitEviction(request, context, pod, dryRun);
  let wanted = preconditions as Preconditions | undefined;
  // An unready pod let go without spending its budget is deleted only as it was read.
  if (pinned) wanted = { ...wanted, resourceVersion: pod.metadata.resourceVersion ?? '' };
  if (dryRun) {
    if ((wanted?.uid && wanted.uid !== pod.metadata.uid) || (wanted?.resourceVersion && wanted.resourceVersion !== pod.metadata.resourceVersion)) {
      expectObject({ type: 'conflict', message: 'the object has been modified; please apply your changes to the latest version and try again' }, target, target.name!);
    }
    return respond(request, reply, 201, success);
  }
  // The pod is deleted as a DELETE with these options would delete it: gracefully when it is
  // bound and running (it stays terminating until a delete with grace period 0, e.g. `kubectl
  // drain --grace-period=0`, or PodGC once its node is gone), at once otherwise.
  const gracePeriod = deletionGracePeriod(target.kind, pod, typeof grace === 'number' ? grace : undefined);
  // The eviction deletes the pod itself: the write is the pods resource's delete.
  const podTarget = { ...target, subresource: undefined };
  const result = await writeDelete(writeRequestOf(request, podTarget, context, false), target.name!, pod, {
    ...(wanted === undefined ? {} : { preconditions: wanted }),
    ...(effectivePolicy ? { propagationPolicy: effectivePolicy } : {}),
    ...(gracePeriod === undefined ? {} : { gracePeriodSeconds: gracePeriod }),
  });
  expectObject(result, target, target.name!);
  return respond(request, reply, 201, success);
}

/**
 * POST pods/<name>/binding (what a scheduler does): assigns the pod to the Binding's target
 * node, as kube's BindingREST: 409 if it is already assigned or being deleted, PodScheduled
 * True added to its status. Proposed with the read resourceVersion, re-read on a conflict.
 */
function podsKind(): ResourceKind {
  const kind = findKind('', 'v1', 'pods');
  if (kind === undefined) throw internalError('pods are not served');
  return kind;
}

/**
 * A Binding: assigns the pod a node once (kube's BindingREST), through pods/<name>/binding or by
 * POSTing it to the namespace's `bindings` collection with the pod's name as its own.
 */
export async function handleBinding(request: FastifyRequest, reply: FastifyReply, requested: Target, context: EndpointContext): Promise<FastifyReply> {
  const collection = requested.subresource === undefined;
  if (!collection) checkSubresource(requested, 'create');
  const raw = requestBody(request);
  const body = raw.length === 0 ? {} : decodeBody(request.headers['content-type'], raw);
  if (!isFields(body) || (body['kind'] !== undefined && body['kind'] !== 'Binding')) throw badRequest('the body of a binding must be a Binding object');
  const metadata = isFields(body['metadata']) ? body['metadata'] : {};
  if (!collection && metadata['name'] !== undefined && metadata['name'] !== requested.name) throw badRequest('name in URL does not match name in Binding object');
  // POST .../bindings names the pod in the Binding's metadata.name; .../pods/<name>/binding in the URL.
  const podName = collection ? (typeof metadata['name'] === 'string' ? metadata['name'] : '') : requested.name!;
  if (podName === '') throw invalid('', 'Binding', '', [{ reason: 'FieldValueRequired', message: 'Required value: name or generateName is required', field: 'metadata.name' }]);
  const target: Target = collection ? { kind: podsKind(), namespace: requested.namespace, name: podName, subresource: 'binding' } : requested;
  const bindingTarget = isFields(body['target']) ? body['target'] : {};
  const nodeName = typeof bindingTarget['name'] === 'string' ? bindingTarget['name'] : '';
  if (nodeName === '') throw invalid('', 'Binding', target.name!, [{ reason: 'FieldValueRequired', message: 'Required value', field: 'target.name' }]);
  if (bindingTarget['kind'] !== undefined && bindingTarget['kind'] !== '' && bindingTarget['kind'] !== 'Node') {
    throw invalid('', 'Binding', target.name!, [{ reason: 'FieldValueNotSupported', message: `Unsupported value: ${JSON.stringify(bindingTarget['kind'])}: supported values: "Node", "<empty>"`, field: 'target.kind' }]);
  }
  const qualified = { group: '', resource: 'pods' };
  for (let attempt = 1; ; attempt++) {
    const pod = await currentPod(target, context);
    const spec = isFields(pod['spec']) ? pod['spec'] : {};
    if (pod.metadata.deletionTimestamp !== undefined) throw conflict(qualified, target.name!, `pod ${target.name!} is being deleted, cannot be assigned to a host`);
    if (typeof spec['nodeName'] === 'string' && spec['nodeName'] !== '') throw conflict(qualified, target.name!, `pod ${target.name!} is already assigned to node ${JSON.stringify(spec['nodeName'])}`);
    const status = isFields(pod['status']) ? pod['status'] : {};
    const conditions = (Array.isArray(status['conditions']) ? status['conditions'] : []).filter((condition) => !isFields(condition) || condition['type'] !== 'PodScheduled');
    const now = causeOf(request, context).at;
    const object = {
      ...structuredClone(pod), spec: { ...spec, nodeName },
      status: { ...status, conditions: [...conditions, { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: now }] },
    } as KubeObject;
    const result = await writeUpdate(writeRequestOf(request, target, context, false, 'binding'), pod, object, { resourceVersion: pod.metadata.resourceVersion ?? '' });
    if (result.type === 'conflict' && attempt < 5) continue;
    expectObject(result, target, target.name!);
    return respond(request, reply, 201, { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 });
  }
}

function containerNames(list: unknown): string[] {
  return (Array.isArray(list) ? list : []).filter(isFields).map((container) => String(container['name'] ?? ''));
}

/** kube's validateContainer: the container to read, or a 400 as kube-apiserver words it. */
function logContainer(pod: KubeObject, requested: string | undefined): string {
  const spec = isFields(pod['spec']) ? pod['spec'] : {};
  const containers = containerNames(spec['containers']);
  const initContainers = containerNames(spec['initContainers']);
  const ephemeral = containerNames(spec['ephemeralContainers']);
  const name = pod.metadata.name ?? '';
  if (requested === undefined || requested === '') {
    if (containers.length === 1) return containers[0]!;
    if (containers.length === 0) throw badRequest(`a container name must be specified for pod ${name}`);
    let message = `a container name must be specified for pod ${name}, choose one of: [${containers.join(' ')}]`;
    if (initContainers.length > 0) message += ` or one of the init containers: [${initContainers.join(' ')}]`;
    if (ephemeral.length > 0) message += ` or one of the ephemeral containers: [${ephemeral.join(' ')}]`;
    throw badRequest(message);
  }
  if (![...containers, ...initContainers, ...ephemeral].includes(requested)) throw badRequest(`container ${requested} is not valid for pod ${name}`);
  return requested;
}

/**
 * pods/exec, pods/attach and pods/portforward: kube-apiserver checks the container (exec,
 * attach) and that a node is assigned (400 `pod <name> does not have a host assigned`, its
 * streamLocation), then proxies to the node's kubelet, which kstore does not have: 404 for a
 * node that does not exist, else the failure to reach its kubelet (500).
 */
export async function handleStream(request: FastifyRequest, reply: FastifyReply, target: Target, context: EndpointContext): Promise<FastifyReply> {
  checkSubresource(target, request.method === 'POST' ? 'create' : 'get');
  const pod = await currentPod(target, context);
  const name = pod.metadata.name ?? '';
  const container = target.subresource === 'portforward' ? undefined : logContainer(pod, queryString(request.query as Query, 'container'));
  const spec = isFields(pod['spec']) ? pod['spec'] : {};
  const nodeName = typeof spec['nodeName'] === 'string' ? spec['nodeName'] : '';
  if (nodeName === '') throw badRequest(`pod ${name} does not have a host assigned`);
  if (!context.store.get({ group: '', resource: 'nodes', namespace: '', name: nodeName })) throw notFound({ group: '', resource: 'nodes' }, nodeName);
  const path = target.subresource === 'portforward' ? `portForward/${target.namespace}/${name}` : `${target.subresource ?? ''}/${target.namespace}/${name}/${container ?? ''}`;
  throw internalError(`error dialing backend: https://${nodeName}:10250/${path}: no kubelet serves node ${JSON.stringify(nodeName)} (kstore runs no kubelets)`);
}

const logIntegerOptions = ['sinceSeconds', 'tailLines', 'limitBytes'];

/** GET pods/<name>/log. */
export async function handleLog(request: FastifyRequest, reply: FastifyReply, target: Target, context: EndpointContext): Promise<FastifyReply> {
  checkSubresource(target, 'get');
  const query = request.query as Query;
  for (const option of logIntegerOptions) {
    const value = queryString(query, option);
    if (value !== undefined && !/^-?\d+$/.test(value)) throw badRequest(`strconv.ParseInt: parsing ${JSON.stringify(value)}: invalid syntax`);
  }
  const pod = await currentPod(target, context);
  const container = logContainer(pod, queryString(query, 'container'));
  const spec = isFields(pod['spec']) ? pod['spec'] : {};
  const nodeName = typeof spec['nodeName'] === 'string' ? spec['nodeName'] : '';
  // Not scheduled: kube-apiserver has no location to stream from and answers an empty log.
  if (nodeName === '') return reply.code(200).type('text/plain').send('');
  if (!context.store.get({ group: '', resource: 'nodes', namespace: '', name: nodeName })) {
    throw notFound({ group: '', resource: 'nodes' }, nodeName);
  }
  throw internalError(`Get "https://${nodeName}:10250/containerLogs/${target.namespace}/${pod.metadata.name ?? ''}/${container}": no kubelet serves node ${JSON.stringify(nodeName)} (kstore runs no kubelets)`);
}
