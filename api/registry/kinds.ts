// Owns: the list of served kinds, in discovery order (core first), and lookups over it. Each
// kind is one ResourceKind in api/registry/kinds/<group>.ts (kind.ts says what one holds).
import type { ResourceKind } from './kind.ts';
import { admissionregistrationKinds } from './kinds/admissionregistration.ts';
import { apiextensionsKinds } from './kinds/apiextensions.ts';
import { apiregistrationKinds } from './kinds/apiregistration.ts';
import { appsKinds } from './kinds/apps.ts';
import { autoscalingKinds } from './kinds/autoscaling.ts';
import { batchKinds } from './kinds/batch.ts';
import { certificatesKinds } from './kinds/certificates.ts';
import { coordinationKinds } from './kinds/coordination.ts';
import { coreKinds } from './kinds/core.ts';
import { coreControllerKinds } from './kinds/core-controllers.ts';
import { coreStorageKinds } from './kinds/core-storage.ts';
import { discoveryKinds } from './kinds/discovery.ts';
import { eventsKinds } from './kinds/events.ts';
import { networkingKinds } from './kinds/networking.ts';
import { nodeKinds } from './kinds/node.ts';
import { policyKinds } from './kinds/policy.ts';
import { flowcontrolKinds } from './kinds/flowcontrol.ts';
import { rbacKinds } from './kinds/rbac.ts';
import { schedulingKinds } from './kinds/scheduling.ts';
import { storageKinds } from './kinds/storage.ts';

export type { NameRule, ResourceKind, ScaleDescription, StoredAs, Strategy, Subresource, TableColumn, TableLayout, Verb } from './kind.ts';
export { apiVersionOf, standardVerbs, storedResourceOf } from './kind.ts';

/**
 * Every served kind. The legacy group comes first; the named groups follow in kube-apiserver's
 * discovery order (its aggregator's group priorities, highest first).
 */
export const servedKinds: readonly ResourceKind[] = [
  ...coreKinds,
  ...coreControllerKinds,
  ...coreStorageKinds,
  ...apiregistrationKinds,
  ...appsKinds,
  ...eventsKinds,
  ...autoscalingKinds,
  ...batchKinds,
  ...certificatesKinds,
  ...networkingKinds,
  ...policyKinds,
  ...rbacKinds,
  ...storageKinds,
  ...admissionregistrationKinds,
  ...apiextensionsKinds,
  ...schedulingKinds,
  ...coordinationKinds,
  ...nodeKinds,
  ...discoveryKinds,
  ...flowcontrolKinds,
];

/** Group versions served, in discovery order (core first). */
export function servedGroups(): { group: string; versions: string[] }[] {
  const groups = new Map<string, string[]>();
  for (const kind of servedKinds) {
    const versions = groups.get(kind.group) ?? [];
    if (!versions.includes(kind.version)) versions.push(kind.version);
    groups.set(kind.group, versions);
  }
  return [...groups].map(([group, versions]) => ({ group, versions }));
}

export function findKind(group: string, version: string, resource: string): ResourceKind | undefined {
  return servedKinds.find((k) => k.group === group && k.version === version && k.resource === resource);
}
