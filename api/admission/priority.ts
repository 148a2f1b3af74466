// Owns: kube-apiserver's Priority admission plugin. A new pod's priority comes from its
// PriorityClass: `spec.priorityClassName` names one (an unknown name is 403 "no PriorityClass
// with name x was found"), or, without a name, the cluster's globalDefault class (the lowest
// value if several) gives its name, value and preemption policy, else priority 0 with
// PreemptLowerPriority. A priority or preemption policy written in the pod that differs from the
// computed one is 403. An update keeps the stored priority and policy when the request drops
// them. A PriorityClass marked globalDefault while another one is already the default is 403
// "Only one default can exist". Subresources pass untouched.
import type { JsonValue, KubeObject } from '../../actors/index.ts';
import { forbidden } from '../status.ts';
import type { AdmissionAttributes, AdmissionPlugin, AdmissionServices } from './chain.ts';

type Fields = Record<string, JsonValue>;

const schedulingGroup = 'scheduling.k8s.io';
const preemptLowerPriority = 'PreemptLowerPriority';

function specOf(object: KubeObject): Fields {
  const spec = object['spec'];
  return spec !== null && typeof spec === 'object' && !Array.isArray(spec) ? (spec as Fields) : {};
}

function priorityClasses(services: AdmissionServices): KubeObject[] {
  return services.store.list({ group: schedulingGroup, resource: 'priorityclasses', namespace: '' }).items
    .filter((priorityClass) => priorityClass.metadata.deletionTimestamp === undefined);
}

interface ComputedPriority {
  readonly className: string;
  readonly value: number;
  readonly preemptionPolicy: string;
}

function priorityOf(priorityClass: KubeObject): ComputedPriority {
  const value = priorityClass['value'];
  const policy = priorityClass['preemptionPolicy'];
  return {
    className: priorityClass.metadata.name ?? '',
    value: typeof value === 'number' ? value : 0,
    preemptionPolicy: typeof policy === 'string' && policy !== '' ? policy : preemptLowerPriority,
  };
}

/** getDefaultPriority: the globalDefault class with the lowest value, else 0 and PreemptLowerPriority. */
function defaultPriority(services: AdmissionServices): ComputedPriority {
  const defaults = priorityClasses(services).filter((priorityClass) => priorityClass['globalDefault'] === true).map(priorityOf);
  const lowest = defaults.sort((left, right) => left.value - right.value)[0];
  return lowest ?? { className: '', value: 0, preemptionPolicy: preemptLowerPriority };
}

function admitPod(attributes: AdmissionAttributes, services: AdmissionServices): void {
  const pod = attributes.object!;
  const spec = specOf(pod);
  if (attributes.operation === 'UPDATE') {
    const old = attributes.oldObject === undefined ? {} : specOf(attributes.oldObject);
    if (spec['priority'] === undefined && old['priority'] !== undefined) spec['priority'] = old['priority'];
    if (spec['preemptionPolicy'] === undefined && old['preemptionPolicy'] !== undefined) spec['preemptionPolicy'] = old['preemptionPolicy'];
    pod['spec'] = spec as KubeObject['spec'];
    return;
  }
  const requested = typeof spec['priorityClassName'] === 'string' ? spec['priorityClassName'] : '';
  let computed: ComputedPriority;
  if (requested === '') {
    computed = defaultPriority(services);
  } else {
    const found = priorityClasses(services).find((priorityClass) => priorityClass.metadata.name === requested);
    if (found === undefined) throw forbidden({ group: '', resource: 'pods' }, attributes.name, `no PriorityClass with name ${requested} was found`);
    computed = priorityOf(found);
  }
  const written = spec['priority'];
  if (written !== undefined && written !== null && written !== computed.value) {
    throw forbidden({ group: '', resource: 'pods' }, attributes.name,
      `the integer value of priority (${String(written)}) must not be provided in pod spec; priority admission controller computed ${computed.value} from the given PriorityClass name`);
  }
  const writtenPolicy = spec['preemptionPolicy'];
  if (typeof writtenPolicy === 'string' && writtenPolicy !== computed.preemptionPolicy) {
    throw forbidden({ group: '', resource: 'pods' }, attributes.name,
      `the string value of PreemptionPolicy (${writtenPolicy}) must not be provided in pod spec; priority admission controller computed ${computed.preemptionPolicy} from the given PriorityClass name`);
  }
  if (computed.className !== '') spec['priorityClassName'] = computed.className;
  spec['priority'] = computed.value;
  spec['preemptionPolicy'] = computed.preemptionPolicy;
  pod['spec'] = spec as KubeObject['spec'];
}

/** Only one PriorityClass may be the global default. */
function validatePriorityClass(attributes: AdmissionAttributes, services: AdmissionServices): void {
  const priorityClass = attributes.object!;
  if (priorityClass['globalDefault'] !== true) return;
  const other = priorityClasses(services).find((existing) => existing['globalDefault'] === true && existing.metadata.name !== priorityClass.metadata.name);
  if (other !== undefined) {
    throw forbidden({ group: schedulingGroup, resource: 'priorityclasses' }, attributes.name,
      `PriorityClass ${other.metadata.name ?? ''} is already marked as default. Only one default can exist`);
  }
}

export const priorityPlugin: AdmissionPlugin = {
  name: 'Priority',
  admit(attributes, services) {
    if (attributes.subresource !== '' || attributes.object === undefined) return;
    if (attributes.kind.group === '' && attributes.kind.resource === 'pods' && (attributes.operation === 'CREATE' || attributes.operation === 'UPDATE')) {
      admitPod(attributes, services);
    }
  },
  validate(attributes, services) {
    if (attributes.subresource !== '' || attributes.object === undefined) return;
    if (attributes.kind.group === schedulingGroup && attributes.kind.resource === 'priorityclasses' && (attributes.operation === 'CREATE' || attributes.operation === 'UPDATE')) {
      validatePriorityClass(attributes, services);
    }
  },
};
