// Owns: kube-apiserver's DefaultIngressClass admission plugin: an Ingress created without
// spec.ingressClassName (and without the legacy kubernetes.io/ingress.class annotation) gets the
// name of the IngressClass annotated ingressclass.kubernetes.io/is-default-class=true; when
// several are, the most recently created one (ties: the first name). Creates only; other writes
// and subresources pass untouched.
import type { KubeObject } from '../../actors/index.ts';
import { defaultIngressClassAnnotation, ingressClassAnnotation } from '../registry/strategy-networking.ts';
import type { AdmissionPlugin } from './chain.ts';

function newestFirst(left: KubeObject, right: KubeObject): number {
  const byTime = Date.parse(right.metadata.creationTimestamp ?? '') - Date.parse(left.metadata.creationTimestamp ?? '');
  if (!Number.isNaN(byTime) && byTime !== 0) return byTime;
  return (left.metadata.name ?? '') < (right.metadata.name ?? '') ? -1 : 1;
}

export const defaultIngressClassPlugin: AdmissionPlugin = {
  name: 'DefaultIngressClass',
  admit(attributes, services) {
    const { kind, object } = attributes;
    if (attributes.operation !== 'CREATE' || attributes.subresource !== '' || object === undefined) return;
    if (kind.group !== 'networking.k8s.io' || kind.resource !== 'ingresses') return;
    const spec = (object['spec'] ?? {}) as Record<string, unknown>;
    if (typeof spec['ingressClassName'] === 'string') return;
    if (object.metadata.annotations?.[ingressClassAnnotation] !== undefined) return;
    const defaults = services.store.list({ group: 'networking.k8s.io', resource: 'ingressclasses', namespace: '' }).items
      .filter((ingressClass) => ingressClass.metadata.annotations?.[defaultIngressClassAnnotation] === 'true')
      .sort(newestFirst);
    const chosen = defaults[0]?.metadata.name;
    if (chosen !== undefined) object['spec'] = { ...spec, ingressClassName: chosen } as KubeObject['spec'];
  },
};
