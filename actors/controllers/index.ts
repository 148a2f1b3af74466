// Public surface of actors/controllers: leader-only controllers that act by proposing commands.
export type { Controller, ControllerContext } from './controller.ts';
export { NamespaceLifecycleController, namespaceFinalizer } from './namespace-lifecycle.ts';
export { GarbageCollector } from './garbage-collector.ts';
