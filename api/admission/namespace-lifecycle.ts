// Owns: kube-apiserver's NamespaceLifecycle admission plugin: nothing is created in a namespace
// that does not exist (404 `namespaces "<ns>" not found`) or is being deleted (403 `unable to
// create new content in namespace <ns> because it is being terminated`). Deciding this before
// proposing means such a refused create costs no Raft entry and moves no resourceVersion; the
// state machine checks the same again at apply (actors/apply.ts), which settles a race with a
// concurrent namespace delete.
import { forbidden, notFound } from '../status.ts';
import type { AdmissionPlugin } from './chain.ts';

export const namespaceLifecyclePlugin: AdmissionPlugin = {
  name: 'NamespaceLifecycle',
  // A mutating-phase plugin in kube (it runs first and changes nothing).
  async admit(attributes, services) {
    if (attributes.operation !== 'CREATE' || !attributes.kind.namespaced || attributes.namespace === '') return;
    const key = { group: '', resource: 'namespaces', namespace: '', name: attributes.namespace };
    let namespace = services.store.get(key);
    // This replica's copy may lag (a namespace just created through another API replica):
    // a refusal is only given after a linearizable read point confirms it.
    if (namespace === undefined || namespace.metadata.deletionTimestamp !== undefined) {
      await services.store.readIndex();
      namespace = services.store.get(key);
    }
    if (namespace === undefined) throw notFound({ group: '', resource: 'namespaces' }, attributes.namespace);
    if (namespace.metadata.deletionTimestamp !== undefined) {
      throw forbidden({ group: attributes.kind.group, resource: attributes.kind.resource }, attributes.name,
        `unable to create new content in namespace ${attributes.namespace} because it is being terminated`);
    }
  },
};
