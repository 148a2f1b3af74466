// Owns: the deletion lifecycle of one stored object as an xstate v5 machine
// (live → [terminating →] finalizing → removed), and the only ways actors/ drives it: pure
// transitions (`initialTransition`, `transition`) over a persisted snapshot kept as plain JSON in
// the object's record, restored with `resolveState`.
//
// Must not: run actors, use `after`/`invoke`/`spawn` (timers and generated ids break replica
// determinism), read a clock (time arrives as `event.at`), decide a kind's grace period (the API
// tier's strategy does and the DELETE carries it), or execute the returned actions (there are
// none; we discard them).
//
// Transition table (grace = the DELETE's gracePeriodSeconds; absent for kinds without graceful
// deletion and for a delete that names no period):
//   live         DELETE (grace > 0)                    → terminating  deletionTimestamp := at + grace, gracePeriodSeconds := grace
//   live         DELETE (finalizers remain)            → finalizing   deletionTimestamp := at
//   live         DELETE (no finalizers)                → removed      deletionTimestamp := at
//   live         FINALIZERS_CHANGED                    → live         finalizers := event.finalizers
//   terminating  DELETE (grace 0, finalizers remain)   → finalizing   deletionTimestamp := the first delete's time, gracePeriodSeconds := 0
//   terminating  DELETE (grace 0, no finalizers)       → removed      (same)
//   terminating  DELETE (0 < grace < current period)   → terminating  deletionTimestamp := first delete's time + grace, gracePeriodSeconds := grace
//   terminating  DELETE (longer, equal or no grace)    → terminating  (nothing changes: a grace period is never lengthened)
//   terminating  FINALIZERS_CHANGED                    → terminating  finalizers := event.finalizers (even none: the grace period still runs)
//   finalizing   FINALIZERS_CHANGED (some remain)      → finalizing   finalizers := event.finalizers
//   finalizing   FINALIZERS_CHANGED (none remain)      → removed      finalizers := []
//   finalizing   DELETE                                → finalizing   (nothing changes: first delete wins)
//   live         UNSAFE_DELETE                         → removed      deletionTimestamp := at
//   terminating  UNSAFE_DELETE                         → removed      (grace period and finalizers ignored)
//   finalizing   UNSAFE_DELETE                         → removed      (finalizers ignored; first delete's time kept)
//   removed      (final; every event ignored)
// `terminating` is kube-apiserver's graceful deletion (generic registry BeforeDelete, pods'
// CheckGracefulDelete): the object stays, with deletionTimestamp in the future, until whoever
// runs it (a pod's kubelet; kstore has none, so a user's `--grace-period=0 --force` or the PodGC
// controller) deletes it with grace period 0. A shorter period moves the deadline back from the
// first delete's time, as BeforeDelete does (old deadline − old period + new period). Removing
// the finalizers of a terminating object does not remove it (kube's ShouldDeleteDuringUpdate
// needs deletionGracePeriodSeconds 0).
// UNSAFE_DELETE is the corrupt-object path of the spec: an object the API tier cannot decode,
// removed with ignoreStoreReadErrorWithClusterBreakingPotential behind the
// AllowUnsafeMalformedObjectDeletion gate; it skips finalizers (and, in apply, preconditions).
//
// Cost: the public `transition()` builds a throwaway inert actor per call (~25 µs measured).
// The reused-scope call is 5× faster but relies on xstate internals that are not exported
// (`createInertActorScope`), so we keep the public API; the machine runs only on delete and
// finalizer changes (and creates with finalizers), not on every update: a create without
// finalizers shares one precomputed initial snapshot (initialDeletion).
import { assign, initialTransition, setup, transition } from 'xstate';
import { assert } from '../../raft/stdx/index.ts';
import { deepFreeze } from '../json.ts';
import type { KubeObject } from '../object.ts';
import { addSecondsRfc3339 } from '../time.ts';
import { statechartOf } from './statechart.ts';
import type { Statechart } from './statechart.ts';

export type DeletionStateName = 'live' | 'terminating' | 'finalizing' | 'removed';

export interface DeletionContext {
  readonly finalizers: readonly string[];
  /**
   * The object's metadata.deletionTimestamp (RFC 3339), null while live: the proposer time of
   * the first DELETE, or for a graceful one that time plus the grace period (when it is due).
   */
  readonly deletionTimestamp: string | null;
  /**
   * metadata.deletionGracePeriodSeconds of a graceful deletion: > 0 while terminating, 0 once a
   * grace-0 delete ended it. Absent for objects never deleted gracefully (and in snapshots
   * persisted before graceful deletion existed, which therefore restore unchanged).
   */
  readonly gracePeriodSeconds?: number;
}

export type DeletionEvent =
  /**
   * `gracePeriodSeconds` is what the API tier's strategy decided (kube's CheckGracefulDelete):
   * > 0 deletes gracefully, 0 at once; absent for kinds without graceful deletion (at once) and
   * for a delete of an already terminating object that names no period (changes nothing).
   */
  | { readonly type: 'DELETE'; readonly at: string; readonly gracePeriodSeconds?: number }
  | { readonly type: 'UNSAFE_DELETE'; readonly at: string }
  | { readonly type: 'FINALIZERS_CHANGED'; readonly finalizers: readonly string[] };

export interface DeletionInput {
  readonly finalizers: readonly string[];
}

/** The plain-JSON persisted form stored in each record (`machine.getPersistedSnapshot`). */
export interface PersistedDeletion {
  readonly status: string;
  readonly value: DeletionStateName;
  readonly context: DeletionContext;
  readonly [field: string]: unknown;
}

function graceOf(event: DeletionEvent): number | undefined {
  return event.type === 'DELETE' ? event.gracePeriodSeconds : undefined;
}

/** `at` plus `seconds` as RFC 3339; the command check bounds both, so it always exists. */
function plusSeconds(at: string, seconds: number): string {
  const sum = addSecondsRfc3339(at, seconds);
  assert(sum !== undefined, `deletion time ${at} + ${seconds}s must be a valid RFC 3339 time`);
  return sum;
}

/** When a terminating object was first deleted: its deadline minus its grace period. */
function firstDeleteTime(context: DeletionContext): string {
  assert(context.deletionTimestamp !== null, 'a terminating object has a deletionTimestamp');
  assert(context.gracePeriodSeconds !== undefined && context.gracePeriodSeconds > 0, 'a terminating object has a positive grace period');
  return plusSeconds(context.deletionTimestamp, -context.gracePeriodSeconds);
}

export const deletionMachine = setup({
  types: {} as {
    context: DeletionContext;
    events: DeletionEvent;
    input: DeletionInput;
  },
  guards: {
    gracefulDelete: ({ event }) => (graceOf(event) ?? 0) > 0,
    deleteLeavesFinalizers: ({ context }) => context.finalizers.length > 0,
    forceDeleteLeavesFinalizers: ({ context, event }) => graceOf(event) === 0 && context.finalizers.length > 0,
    forceDelete: ({ event }) => graceOf(event) === 0,
    shortensGracePeriod: ({ context, event }) => {
      const grace = graceOf(event);
      return grace !== undefined && grace > 0 && grace < (context.gracePeriodSeconds ?? 0);
    },
    finalizersEmptied: ({ event }) => event.type === 'FINALIZERS_CHANGED' && event.finalizers.length === 0,
  },
  actions: {
    recordDeletion: assign({
      deletionTimestamp: ({ context, event }) => {
        assert(event.type === 'DELETE' || event.type === 'UNSAFE_DELETE', 'recordDeletion runs only on a delete');
        return context.deletionTimestamp ?? event.at;
      },
    }),
    recordGracefulDeletion: assign(({ event }) => {
      const grace = graceOf(event);
      assert(event.type === 'DELETE' && grace !== undefined && grace > 0, 'a graceful deletion has a positive grace period');
      return { deletionTimestamp: plusSeconds(event.at, grace), gracePeriodSeconds: grace };
    }),
    recordShorterGracePeriod: assign(({ context, event }) => {
      const grace = graceOf(event);
      assert(grace !== undefined && grace > 0 && grace < (context.gracePeriodSeconds ?? 0), 'a grace period only shortens');
      return { deletionTimestamp: plusSeconds(firstDeleteTime(context), grace), gracePeriodSeconds: grace };
    }),
    recordForcedDeletion: assign(({ context, event }) => {
      assert(graceOf(event) === 0, 'a forced deletion has grace period 0');
      return { deletionTimestamp: firstDeleteTime(context), gracePeriodSeconds: 0 };
    }),
    recordFinalizers: assign({
      finalizers: ({ event }) => {
        assert(event.type === 'FINALIZERS_CHANGED', 'recordFinalizers runs only on FINALIZERS_CHANGED');
        return [...event.finalizers];
      },
    }),
  },
}).createMachine({
  id: 'deletion',
  initial: 'live',
  context: ({ input }) => ({ finalizers: [...input.finalizers], deletionTimestamp: null }),
  states: {
    live: {
      description: 'in use',
      on: {
        DELETE: [
          { guard: 'gracefulDelete', target: 'terminating', actions: 'recordGracefulDeletion' },
          { guard: 'deleteLeavesFinalizers', target: 'finalizing', actions: 'recordDeletion' },
          { target: 'removed', actions: 'recordDeletion' },
        ],
        UNSAFE_DELETE: { target: 'removed', actions: 'recordDeletion' },
        FINALIZERS_CHANGED: { actions: 'recordFinalizers' },
      },
    },
    terminating: {
      description: 'deletionTimestamp set for the end of the grace period; removed by a delete with grace period 0',
      on: {
        DELETE: [
          { guard: 'forceDeleteLeavesFinalizers', target: 'finalizing', actions: 'recordForcedDeletion' },
          { guard: 'forceDelete', target: 'removed', actions: 'recordForcedDeletion' },
          { guard: 'shortensGracePeriod', actions: 'recordShorterGracePeriod' },
        ],
        UNSAFE_DELETE: { target: 'removed', actions: 'recordDeletion' },
        FINALIZERS_CHANGED: { actions: 'recordFinalizers' },
      },
    },
    finalizing: {
      description: 'deletionTimestamp set; removed once its finalizers are gone',
      on: {
        FINALIZERS_CHANGED: [
          { guard: 'finalizersEmptied', target: 'removed', actions: 'recordFinalizers' },
          { actions: 'recordFinalizers' },
        ],
        UNSAFE_DELETE: { target: 'removed', actions: 'recordDeletion' },
      },
    },
    removed: { type: 'final', description: 'gone from the store' },
  },
});

/**
 * The persisted snapshot as plain JSON: xstate's object carries `output`/`error` keys set to
 * undefined, which JSON drops; normalizing here keeps a fresh state and a restored one
 * byte-identical when serialized. The result is deep-frozen (records are immutable).
 */
function persist(snapshot: ReturnType<typeof deletionMachine.resolveState>): PersistedDeletion {
  const plain: unknown = JSON.parse(JSON.stringify(deletionMachine.getPersistedSnapshot(snapshot)));
  const persisted = deepFreeze(plain as PersistedDeletion);
  assert(isStateName(persisted.value), `deletion machine state must be a known name, got ${String(persisted.value)}`);
  return persisted;
}

function isStateName(value: unknown): value is DeletionStateName {
  return value === 'live' || value === 'terminating' || value === 'finalizing' || value === 'removed';
}

/** Plain words for the machine's guards, for the statechart the inspector shows. */
export const deletionGuardDescriptions = {
  gracefulDelete: 'grace period > 0',
  deleteLeavesFinalizers: 'finalizers remain',
  forceDeleteLeavesFinalizers: 'grace period 0, finalizers remain',
  forceDelete: 'grace period 0',
  shortensGracePeriod: 'shorter grace period',
  finalizersEmptied: 'no finalizers remain',
} as const;

/** The deletion machine's statechart (computed once; it never changes at run time). */
export const deletionStatechart: Statechart = statechartOf(deletionMachine, deletionGuardDescriptions);

/**
 * What an object in this deletion state is waiting for, in plain words. `object` (the stored
 * object, when the caller has it) names who is expected to end a graceful deletion: for a pod,
 * the kubelet of its node.
 */
export function deletionWaitingFor(persisted: Pick<PersistedDeletion, 'value' | 'context'>, object?: KubeObject): string {
  const finalizers = persisted.context.finalizers;
  switch (persisted.value) {
    case 'live':
      return finalizers.length === 0
        ? 'live: waiting for a delete'
        : `live: waiting for a delete (then finalizing until finalizers ${finalizers.join(', ')} are removed)`;
    case 'terminating': {
      const node = nodeNameOf(object);
      const who = node === undefined ? 'whoever runs it to finish' : `the kubelet on node ${node} to stop its containers`;
      const then = finalizers.length === 0 ? '' : `; then finalizers ${finalizers.join(', ')}`;
      return `terminating: waiting for ${who}, or a delete with grace period 0 (grace period ${persisted.context.gracePeriodSeconds ?? 0}s, due ${persisted.context.deletionTimestamp ?? ''})${then}`;
    }
    case 'finalizing':
      return `finalizing: waiting for finalizers ${finalizers.join(', ')}`;
    case 'removed':
      return 'removed: nothing (final state)';
  }
}

function nodeNameOf(object: KubeObject | undefined): string | undefined {
  const spec = object?.['spec'];
  const nodeName = spec !== null && typeof spec === 'object' && !Array.isArray(spec) ? spec['nodeName'] : undefined;
  return typeof nodeName === 'string' && nodeName !== '' ? nodeName : undefined;
}

/**
 * The persisted snapshot of a newly created object's lifecycle. Most objects are created without
 * finalizers, and their initial snapshot is always the same: it is computed by the machine once
 * and shared (deep-frozen, like every record), so a create neither runs xstate nor allocates a
 * snapshot per object on any member. Objects created with finalizers run the machine.
 */
export function initialDeletion(input: DeletionInput): PersistedDeletion {
  if (input.finalizers.length === 0) return (liveWithoutFinalizers ??= machineInitialDeletion({ finalizers: [] }));
  return machineInitialDeletion(input);
}

let liveWithoutFinalizers: PersistedDeletion | undefined;

function machineInitialDeletion(input: DeletionInput): PersistedDeletion {
  const [snapshot] = initialTransition(deletionMachine, input);
  const persisted = persist(snapshot);
  assert(persisted.value === 'live', 'a new object starts live');
  return persisted;
}

/** Restores `persisted`, applies `event` purely, and returns the next persisted snapshot. */
export function advanceDeletion(persisted: PersistedDeletion, event: DeletionEvent): PersistedDeletion {
  assert(isStateName(persisted.value), 'persisted deletion snapshot must name a known state');
  const restored = deletionMachine.resolveState({ value: persisted.value, context: persisted.context });
  const [next] = transition(deletionMachine, restored, event);
  return persist(next);
}
