// Owns: what the first delete of a CustomResourceDefinition does besides starting its deletion,
// as kube-apiserver's CRD storage does it in the same write: the
// `customresourcecleanup.apiextensions.k8s.io` finalizer is added (the API tier's CRD controller
// deletes the CRD's objects, then removes it) and the Terminating condition is set. Pure: the
// time is the delete command's `at`.
import type { KubeObject } from './object.ts';

export const crdCleanupFinalizer = 'customresourcecleanup.apiextensions.k8s.io';

export function isCustomResourceDefinition(object: KubeObject): boolean {
  return object.apiVersion === 'apiextensions.k8s.io/v1' && object.kind === 'CustomResourceDefinition';
}

type Fields = Record<string, unknown>;

function fieldsOf(value: unknown): Fields {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Fields) : {};
}

/** The CRD's status with Terminating=True (InstanceDeletionPending), replacing an earlier Terminating condition. */
export function terminatingStatus(object: KubeObject, at: string): Fields {
  const status = fieldsOf(object['status']);
  const conditions = Array.isArray(status['conditions']) ? status['conditions'].filter((condition) => fieldsOf(condition)['type'] !== 'Terminating') : [];
  const terminating = {
    type: 'Terminating', status: 'True', lastTransitionTime: at, reason: 'InstanceDeletionPending',
    message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon',
  };
  return { ...status, conditions: [...conditions, terminating] };
}
