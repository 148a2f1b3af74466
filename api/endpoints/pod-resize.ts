// Owns: the pods/resize subresource (in-place pod vertical scaling, beta and on in kube 1.33).
// GET answers the Pod; PUT and PATCH keep from the requested pod only the resources and
// resizePolicy of its containers and init containers (kube's dropNonResizeUpdates: everything
// else comes from the stored pod; containers added, removed, renamed or reordered are left for
// validation to refuse) and check the change with kube's ValidatePodResize: no pod-level
// resources, not a static or Windows pod, the QoS class unchanged, a node that reports container
// resources, containers in the same order, requests and limits never removed, a memory limit
// neither decreased nor added unless the container's memory resize policy is RestartContainer,
// and only cpu and memory changed (sidecar init containers alike; other init containers not at
// all). The resizePolicy is taken from the request as kube's strategy takes it, but the
// validation compares everything but cpu and memory with the stored container, so a changed
// policy is refused as kube's ValidatePodResize refuses it. Without a kubelet nothing actuates
// the resize: the spec holds the desired resources.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { JsonValue, KubeObject } from '../../actors/index.ts';
import { podQosClass, podSpecCauses } from '../registry/strategy-workloads.ts';
import type { StatusCause } from '../status.ts';
import type { EndpointContext } from './context.ts';
import { canonical, fields, forbidden, handlePodPartWrite, isMirrorPod, records, specOf, storedWithRequestedMeta } from './ephemeral-containers.ts';
import type { Fields, PodPartRules } from './ephemeral-containers.ts';
import type { Target } from './target.ts';

const containerLists = ['containers', 'initContainers'] as const;

function sameNames(stored: readonly Fields[], requested: readonly Fields[]): boolean {
  return stored.length === requested.length && stored.every((container, index) => container['name'] === requested[index]!['name']);
}

/** dropNonResizeUpdates: the stored pod with the containers' resources and resizePolicy from the request. */
function mergeResize(stored: KubeObject, requested: KubeObject): KubeObject {
  const merged = storedWithRequestedMeta(stored, requested);
  const storedSpec = specOf(stored);
  const requestedSpec = specOf(requested);
  const spec: Fields = { ...storedSpec };
  const aligned = containerLists.every((list) => sameNames(records(storedSpec[list]), records(requestedSpec[list])));
  for (const list of containerLists) {
    const requestedList = records(requestedSpec[list]);
    if (!aligned) {
      // Added, removed, renamed or reordered: kept as asked, validation refuses it.
      if (requestedSpec[list] === undefined) delete spec[list];
      else spec[list] = requestedList;
      continue;
    }
    if (storedSpec[list] === undefined) continue;
    spec[list] = records(storedSpec[list]).map((container, index) => {
      const next: Fields = { ...container };
      const asked = requestedList[index]!;
      for (const part of ['resources', 'resizePolicy'] as const) {
        if (asked[part] === undefined) delete next[part];
        else next[part] = asked[part];
      }
      if (next['resources'] === undefined) next['resources'] = {};
      return next;
    });
  }
  merged['spec'] = spec;
  return merged;
}

const binarySuffixes: Readonly<Record<string, number>> = { Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60 };
const decimalSuffixes: Readonly<Record<string, number>> = { n: 1e-9, u: 1e-6, m: 1e-3, '': 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18 };

/** A resource.Quantity's value (for comparing two memory limits), or undefined when it does not parse. */
export function quantityValue(quantity: JsonValue | undefined): number | undefined {
  if (typeof quantity === 'number') return quantity;
  if (typeof quantity !== 'string') return undefined;
  const match = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)|[eE]([+-]?\d+))?$/.exec(quantity.trim());
  if (match === null) return undefined;
  const number = Number(match[1]);
  if (match[3] !== undefined) return number * 10 ** Number(match[3]);
  const suffix = match[2] ?? '';
  return number * (binarySuffixes[suffix] ?? decimalSuffixes[suffix] ?? 1);
}

function resourceList(container: Fields, part: 'requests' | 'limits'): Fields {
  return fields(fields(container['resources'])[part]);
}

/** resourcesRemoved: a resource the old list names that the new one does not. */
function resourcesRemoved(next: Fields, old: Fields): boolean {
  return Object.keys(old).some((name) => next[name] === undefined);
}

/** validateContainerResize: requests and limits are not removed; memory limits only shrink (or appear) with a restart. */
function containerResizeCauses(next: Fields, old: Fields, at: string): StatusCause[] {
  const causes: StatusCause[] = [];
  if (resourcesRemoved(resourceList(next, 'requests'), resourceList(old, 'requests'))) causes.push(forbidden(`${at}.requests`, 'resource requests cannot be removed'));
  if (resourcesRemoved(resourceList(next, 'limits'), resourceList(old, 'limits'))) causes.push(forbidden(`${at}.limits`, 'resource limits cannot be removed'));
  const memoryPolicy = records(next['resizePolicy']).find((policy) => policy['resourceName'] === 'memory')?.['restartPolicy'];
  if (memoryPolicy === undefined || memoryPolicy === '' || memoryPolicy === 'NotRequired') {
    const newLimit = resourceList(next, 'limits')['memory'];
    const oldLimit = resourceList(old, 'limits')['memory'];
    if (newLimit !== undefined && oldLimit !== undefined) {
      const newValue = quantityValue(newLimit);
      const oldValue = quantityValue(oldLimit);
      if (newValue !== undefined && oldValue !== undefined && newValue < oldValue) causes.push(forbidden(`${at}.limits[memory]`, 'memory limits cannot be decreased unless resizePolicy is RestartContainer'));
    } else if (newLimit !== undefined) {
      causes.push(forbidden(`${at}.limits[memory]`, 'memory limits cannot be added unless resizePolicy is RestartContainer'));
    }
  }
  return causes;
}

/** dropCPUMemoryResourcesFromContainer: the container with its cpu and memory as they were. */
function withOldCpuMemory(container: Fields, old: Fields): Fields {
  const keep = (part: 'requests' | 'limits'): Fields | undefined => {
    if (fields(old['resources'])[part] === undefined) return undefined;
    const list: Fields = { ...resourceList(container, part) };
    const oldList = resourceList(old, part);
    for (const resource of ['cpu', 'memory']) {
      delete list[resource];
      if (oldList[resource] !== undefined) list[resource] = oldList[resource];
    }
    return list;
  };
  const requests = keep('requests');
  const limits = keep('limits');
  return { ...container, resources: { ...(limits === undefined ? {} : { limits }), ...(requests === undefined ? {} : { requests }) } };
}

/** A container compared for "only cpu and memory": empty resource lists are no lists (Go's semantic equality on nil maps). */
function comparable(container: Fields): string {
  const resources = fields(container['resources']);
  const normal: Fields = {};
  for (const [key, value] of Object.entries(resources)) if (Object.keys(fields(value)).length > 0 || (key !== 'requests' && key !== 'limits')) normal[key] = value;
  return canonical({ ...container, resources: normal });
}

function isSidecar(container: Fields): boolean {
  return container['restartPolicy'] === 'Always';
}

/** Containers added, removed, renamed or reordered (validatePodResizeContainerOrdering). */
function orderingCauses(next: Fields, old: Fields): StatusCause[] {
  const causes: StatusCause[] = [];
  for (const list of containerLists) {
    const newList = records(next[list]);
    const oldList = records(old[list]);
    if (newList.length !== oldList.length) {
      causes.push(forbidden(`spec.${list}`, `${list} may not be added or removed on resize`));
      continue;
    }
    oldList.forEach((container, index) => {
      if (newList[index]!['name'] !== container['name']) causes.push(forbidden(`spec.${list}[${index}].name`, `${list} may not be renamed or reordered on resize`));
    });
  }
  return causes;
}

/** isPodResizeRequestSupported: the first running container's status reports its resources (its node supports resize). */
function nodeSupportsResize(pod: KubeObject): boolean {
  const statuses = records(fields(pod['status'] as JsonValue | undefined)['containerStatuses']);
  const running = statuses.find((status) => fields(status['state'])['running'] !== undefined);
  return running === undefined || running['resources'] !== undefined;
}

/** ValidatePodResize (after the pod spec rules). */
function resizeCauses(object: KubeObject, old: KubeObject): StatusCause[] {
  const next = specOf(object);
  const previous = specOf(old);
  const podLevel = (spec: Fields) => Object.keys(resourceList(spec, 'requests')).length + Object.keys(resourceList(spec, 'limits')).length > 0;
  if (podLevel(previous) || podLevel(next)) return [forbidden('', 'pods with pod-level resources cannot be resized')];
  if (isMirrorPod(old)) return [forbidden('', 'static pods cannot be resized')];
  if (fields(previous['os'])['name'] === 'windows') return [forbidden('', 'windows pods cannot be resized')];
  const causes: StatusCause[] = [];
  const oldQos = fields(old['status'] as JsonValue | undefined)['qosClass'];
  const oldClass = typeof oldQos === 'string' && oldQos !== '' ? oldQos : podQosClass(previous);
  if (oldClass !== podQosClass(next)) {
    const shown = fields(object['status'] as JsonValue | undefined)['qosClass'] ?? '';
    causes.push({ reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(shown)}: Pod QOS Class may not change as a result of resizing`, field: 'spec' });
  }
  if (!nodeSupportsResize(old)) causes.push(forbidden('spec', 'Pod running on node without support for resize'));
  const ordering = orderingCauses(next, previous);
  if (ordering.length > 0) return [...causes, ...ordering];
  const oldInit = records(previous['initContainers']);
  const newInit = records(next['initContainers']);
  oldInit.forEach((container, index) => {
    if (isSidecar(container)) causes.push(...containerResizeCauses(newInit[index]!, container, `spec.initContainers[${index}].resources`));
  });
  const oldContainers = records(previous['containers']);
  const newContainers = records(next['containers']);
  oldContainers.forEach((container, index) => causes.push(...containerResizeCauses(newContainers[index]!, container, `spec.containers[${index}].resources`)));
  newContainers.forEach((container, index) => {
    if (comparable(withOldCpuMemory(container, oldContainers[index]!)) !== comparable(oldContainers[index]!)) causes.push(forbidden('spec', 'only cpu and memory resources are mutable'));
  });
  newInit.forEach((container, index) => {
    const oldContainer = oldInit[index]!;
    if (isSidecar(container)) {
      if (comparable(withOldCpuMemory(container, oldContainer)) !== comparable(oldContainer)) causes.push(forbidden('spec', 'only cpu and memory resources for sidecar containers are mutable'));
    } else if (comparable(container) !== comparable(oldContainer)) {
      causes.push(forbidden('spec', 'resources for non-sidecar init containers are immutable'));
    }
  });
  return causes;
}

export const resizeRules: PodPartRules = {
  merge: mergeResize,
  validate: (object) => podSpecCauses(specOf(object), 'spec'),
  validateUpdate: resizeCauses,
};

/** PUT or PATCH pods/<name>/resize. */
export function handleResize(request: FastifyRequest, reply: FastifyReply, target: Target, context: EndpointContext): Promise<FastifyReply> {
  return handlePodPartWrite(request, reply, target, context, resizeRules);
}
