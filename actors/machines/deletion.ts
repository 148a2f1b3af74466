// Owns: the deletion lifecycle of one stored object as an xstate v5 machine
// (live → finalizing → removed), and the only ways actors/ drives it: pure transitions
// (`initialTransition`, `transition`) over a persisted snapshot kept as plain JSON in the
// object's record, restored with `resolveState`.
//
// Must not: run actors, use `after`/`invoke`/`spawn` (timers and generated ids break replica
// determinism), read a clock (time arrives as `event.at`), or execute the returned actions
// (there are none; we discard them).
//
// Transition table:
//   live        DELETE (finalizers remain)       → finalizing  deletionTimestamp := at
//   live        DELETE (no finalizers)           → removed     deletionTimestamp := at
//   live        FINALIZERS_CHANGED               → live        finalizers := event.finalizers
//   finalizing  FINALIZERS_CHANGED (some remain) → finalizing  finalizers := event.finalizers
//   finalizing  FINALIZERS_CHANGED (none remain) → removed     finalizers := []
//   finalizing  DELETE                           → finalizing  (nothing changes: first delete wins)
//   live        UNSAFE_DELETE                    → removed     deletionTimestamp := at
//   finalizing  UNSAFE_DELETE                    → removed     (finalizers ignored; first delete's time kept)
//   removed     (final; every event ignored)
// UNSAFE_DELETE is the corrupt-object path of the spec: an object the API tier cannot decode,
// removed with ignoreStoreReadErrorWithClusterBreakingPotential behind the
// AllowUnsafeMalformedObjectDeletion gate; it skips finalizers (and, in apply, preconditions).
//
// Cost: the public `transition()` builds a throwaway inert actor per call (~25 µs, see
// STACK-NOTES §1). The reused-scope call is 5× faster but relies on xstate internals that are
// not exported (`createInertActorScope`), so we keep the public API; the machine runs only on
// create, delete and finalizer changes, not on every update.
import { assign, initialTransition, setup, transition } from 'xstate';
import { assert } from '../../raft/stdx/index.ts';
import { deepFreeze } from '../json.ts';
import { statechartOf } from './statechart.ts';
import type { Statechart } from './statechart.ts';

export type DeletionStateName = 'live' | 'finalizing' | 'removed';

export interface DeletionContext {
  readonly finalizers: readonly string[];
  /** Proposer time of the first DELETE (RFC 3339), null while live. */
  readonly deletionTimestamp: string | null;
}

export type DeletionEvent =
  | { readonly type: 'DELETE'; readonly at: string }
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

export const deletionMachine = setup({
  types: {} as {
    context: DeletionContext;
    events: DeletionEvent;
    input: DeletionInput;
  },
  guards: {
    deleteLeavesFinalizers: ({ context }) => context.finalizers.length > 0,
    finalizersEmptied: ({ event }) => event.type === 'FINALIZERS_CHANGED' && event.finalizers.length === 0,
  },
  actions: {
    recordDeletion: assign({
      deletionTimestamp: ({ context, event }) => {
        assert(event.type === 'DELETE' || event.type === 'UNSAFE_DELETE', 'recordDeletion runs only on a delete');
        return context.deletionTimestamp ?? event.at;
      },
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
          { guard: 'deleteLeavesFinalizers', target: 'finalizing', actions: 'recordDeletion' },
          { target: 'removed', actions: 'recordDeletion' },
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
  return value === 'live' || value === 'finalizing' || value === 'removed';
}

/** Plain words for the machine's guards, for the statechart the inspector shows. */
export const deletionGuardDescriptions = {
  deleteLeavesFinalizers: 'finalizers remain',
  finalizersEmptied: 'no finalizers remain',
} as const;

/** The deletion machine's statechart (computed once; it never changes at run time). */
export const deletionStatechart: Statechart = statechartOf(deletionMachine, deletionGuardDescriptions);

/** What an object in this deletion state is waiting for, in plain words. */
export function deletionWaitingFor(persisted: Pick<PersistedDeletion, 'value' | 'context'>): string {
  const finalizers = persisted.context.finalizers;
  switch (persisted.value) {
    case 'live':
      return finalizers.length === 0
        ? 'live: waiting for a delete'
        : `live: waiting for a delete (then finalizing until finalizers ${finalizers.join(', ')} are removed)`;
    case 'finalizing':
      return `finalizing: waiting for finalizers ${finalizers.join(', ')}`;
    case 'removed':
      return 'removed: nothing (final state)';
  }
}

/** The persisted snapshot of a newly created object's lifecycle. */
export function initialDeletion(input: DeletionInput): PersistedDeletion {
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
