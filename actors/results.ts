// Owns: what applying a command tells its proposer. Each failure is a value, never a throw:
// a bad command is rejected deterministically on every replica.
import type { KubeObject } from './object.ts';

export type CommandResult =
  /** Created or updated; `object` is what is now stored. */
  | { readonly type: 'stored'; readonly object: KubeObject; readonly revision: number }
  /** Delete accepted but finalizers remain; `object` now has deletionTimestamp. */
  | { readonly type: 'finalizing'; readonly object: KubeObject; readonly revision: number }
  /** The object is gone; `object` is its last state (resourceVersion = this revision). */
  | { readonly type: 'removed'; readonly object: KubeObject; readonly revision: number }
  | { readonly type: 'notFound' }
  | { readonly type: 'alreadyExists' }
  | { readonly type: 'namespaceNotFound'; readonly namespace: string }
  | { readonly type: 'namespaceTerminating'; readonly namespace: string }
  | { readonly type: 'conflict'; readonly message: string }
  | { readonly type: 'invalid'; readonly message: string }
  | { readonly type: 'noop'; readonly revision: number };
