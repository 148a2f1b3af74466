// Owns: translating a CommandResult from the store into the HTTP answer kube-apiserver would
// give (storeerr.Interpret*Error): every failure becomes an ApiError with the right Status.
import type { CommandResult, KubeObject } from '../../actors/index.ts';
import { alreadyExists, ApiError, conflict, forbidden, internalError, invalid, notFound } from '../status.ts';
import type { Target } from './target.ts';

export type StoredResult = Extract<CommandResult, { type: 'stored' | 'finalizing' | 'removed' }>;

/** Returns the result when it carries an object; throws the matching Status otherwise. */
export function expectObject(result: CommandResult, target: Target, name: string): StoredResult {
  const qualified = { group: target.kind.group, resource: target.kind.resource };
  switch (result.type) {
    case 'stored':
    case 'finalizing':
    case 'removed':
      return result;
    case 'notFound':
      throw notFound(qualified, name);
    case 'alreadyExists':
      throw alreadyExists(qualified, name);
    case 'namespaceNotFound':
      throw notFound({ group: '', resource: 'namespaces' }, result.namespace);
    case 'namespaceTerminating':
      throw forbidden(qualified, name, `unable to create new content in namespace ${result.namespace} because it is being terminated`);
    case 'conflict':
      throw conflict(qualified, name, result.message);
    case 'invalid':
      throw invalid(target.kind.group, target.kind.kind, name, [{ reason: 'FieldValueInvalid', message: result.message }]);
    case 'noop':
      throw internalError('the store answered a write with a no-op');
  }
}

export function isApiError(error: unknown): error is ApiError {
  return error instanceof ApiError;
}

export function objectName(object: KubeObject): string {
  return object.metadata.name ?? '';
}
