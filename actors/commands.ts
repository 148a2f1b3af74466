// Owns: the commands the API tier proposes to the replicated state machine, and their codec
// (JSON bytes in a Raft entry). Commands carry everything non-deterministic (uid, timestamps)
// so that apply stays a pure function of (state, entry).
import type { KubeObject, ObjectKey } from './object.ts';

export const commandVersion = 1;

export interface Preconditions {
  readonly uid?: string;
  readonly resourceVersion?: string;
}

/** Create a new object. The API tier already set uid, creationTimestamp and the final name. */
export interface CreateCommand {
  readonly type: 'create';
  readonly key: ObjectKey;
  readonly object: KubeObject;
  /** Proposer's wall-clock time (RFC 3339), the only time apply may use. */
  readonly at: string;
  /** Who asked (the authenticated user, or a controller's identity): recorded in lifecycle transitions. */
  readonly by?: string;
}

/**
 * Replace an existing object. `preconditions.resourceVersion`, when set, must equal the stored
 * one (else conflict). Apply keeps server-owned metadata (uid, creationTimestamp,
 * deletionTimestamp) from the stored object. Removing the last finalizer of an object being
 * deleted removes it.
 */
export interface UpdateCommand {
  readonly type: 'update';
  readonly key: ObjectKey;
  readonly object: KubeObject;
  readonly preconditions?: Preconditions;
  readonly at: string;
  /** Who asked (the authenticated user, or a controller's identity): recorded in lifecycle transitions. */
  readonly by?: string;
}

/**
 * How the dependents of a deleted object are treated (metav1.DeletionPropagation). Orphan and
 * Foreground add the `orphan` / `foregroundDeletion` finalizer at the first delete, which the
 * garbage collector acts on and removes; Background (the default) deletes at once and lets the
 * collector delete dependents afterwards.
 */
export type PropagationPolicy = 'Orphan' | 'Background' | 'Foreground';

export const orphanFinalizer = 'orphan';
export const foregroundFinalizer = 'foregroundDeletion';

/**
 * The longest grace period a delete may carry: a century. kube-apiserver takes any int64; the
 * bound keeps `at + grace` a four-digit-year RFC 3339 time (the API tier clamps to it, and the
 * command check rejects more, so apply never computes a time it cannot write).
 */
export const gracePeriodSecondsMax = 100 * 365 * 24 * 3600;

/**
 * Delete: removes at once without finalizers; otherwise starts finalizing. With a positive
 * `gracePeriodSeconds` a live object starts terminating instead (graceful deletion; see
 * machines/deletion.ts).
 */
export interface DeleteCommand {
  readonly type: 'delete';
  readonly key: ObjectKey;
  readonly preconditions?: Preconditions;
  readonly propagationPolicy?: PropagationPolicy;
  /**
   * The grace period the API tier's strategy decided for this object (kube's
   * CheckGracefulDelete: for pods, DeleteOptions.gracePeriodSeconds, else
   * spec.terminationGracePeriodSeconds, 0 when unbound or finished). Absent for kinds without
   * graceful deletion, and for a delete of an already terminating object that names no period
   * (which changes nothing). 0 ends a graceful deletion at once (`--grace-period=0 --force`).
   */
  readonly gracePeriodSeconds?: number;
  readonly at: string;
  /** Who asked (the authenticated user, or a controller's identity): recorded in lifecycle transitions. */
  readonly by?: string;
  /**
   * The corrupt-object path: remove the object whatever its finalizers and preconditions
   * (ignoreStoreReadErrorWithClusterBreakingPotential). Proposed by the API tier only for an
   * object it cannot decode, with the AllowUnsafeMalformedObjectDeletion gate on.
   */
  readonly ignoreStoreReadError?: boolean;
}

/** Committed by a new leader so entries of earlier terms commit (Raft §5.4.2); changes nothing. */
export interface NoopCommand {
  readonly type: 'noop';
}

/**
 * Proposed by the leader (the token expiry controller) with its clock's time: every bootstrap
 * token secret whose token machine is valid and whose expiration is at or before `at` becomes
 * expired (an EXPIRE {at} event), on every replica alike. Its result is `noop` (it names no
 * single object); each expired token is a MODIFIED change event carrying the new lifecycle.
 */
export interface ExpireTokensCommand {
  readonly type: 'expireTokens';
  readonly at: string;
  readonly by?: string;
}

export type Command = CreateCommand | UpdateCommand | DeleteCommand | ExpireTokensCommand | NoopCommand;

/** A command plus the client session that makes retries at-most-once (Raft thesis §6.3). */
export interface CommandEnvelope {
  readonly version: typeof commandVersion;
  readonly command: Command;
  readonly session?: { readonly id: string; readonly sequence: number };
}

const textEncoder = new TextEncoder();
const textDecoder = new TextDecoder();

export function encodeCommand(envelope: CommandEnvelope): Uint8Array {
  return textEncoder.encode(JSON.stringify(envelope));
}

/** Decodes entry bytes; an empty entry (Raft's own no-op) decodes as a noop command. */
export function decodeCommand(data: Uint8Array): CommandEnvelope {
  if (data.length === 0) return { version: commandVersion, command: { type: 'noop' } };
  return JSON.parse(textDecoder.decode(data)) as CommandEnvelope;
}
