// Owns: the bootstrap token lifecycle of one token secret as an xstate v5 machine
// (spec: Bootstrap token lifecycle: valid → expired → deleted), driven the same way as the
// deletion machine: pure transitions over a persisted snapshot kept as plain JSON in the
// secret's record.
//
// Must not: run actors, use `after`/`invoke`/`spawn`, or read a clock. Expiry is not a timer:
// the leader proposes an `expireTokens` command carrying its time T, and every replica runs
// EXPIRE {at: T} against the expiration in the context, so all agree on when a token expired.
//
// Transition table:
//   valid    EXPIRE (expiration set and ≤ at)   → expired   expiredAt := at
//   valid    EXPIRE (no expiration, or later)   → valid     (nothing changes; not recorded)
//   valid    EXPIRATION_CHANGED                 → valid     expiration := event.expiration
//   valid    DELETE                             → deleted   deletedAt := at
//   expired  EXPIRATION_CHANGED                 → expired   expiration := event.expiration
//                                                          (an expired token stays expired)
//   expired  DELETE                             → deleted   deletedAt := at
//   deleted  (final; every event ignored)
// An unparseable expiration counts as reached (as cluster-bootstrap's HasExpired).
import { assign, initialTransition, setup, transition } from 'xstate';
import { assert } from '../../raft/stdx/index.ts';
import { deepFreeze } from '../json.ts';
import { rfc3339ToMillis } from '../time.ts';
import { statechartOf } from './statechart.ts';
import type { Statechart } from './statechart.ts';
import { expirationReached } from './token-secret.ts';

export type TokenStateName = 'valid' | 'expired' | 'deleted';

export interface TokenContext {
  readonly tokenId: string;
  /** The secret's `expiration` (RFC 3339) as last written, null when it has none. */
  readonly expiration: string | null;
  /** The `at` of the expireTokens command that expired it (RFC 3339), null until then. */
  readonly expiredAt: string | null;
  /** The `at` of the delete that removed the secret, null until then. */
  readonly deletedAt: string | null;
}

export type TokenEvent =
  | { readonly type: 'EXPIRE'; readonly at: string }
  | { readonly type: 'EXPIRATION_CHANGED'; readonly expiration: string | null }
  | { readonly type: 'DELETE'; readonly at: string };

export interface TokenInput {
  readonly tokenId: string;
  readonly expiration: string | null;
}

export interface PersistedToken {
  readonly status: string;
  readonly value: TokenStateName;
  readonly context: TokenContext;
  readonly [field: string]: unknown;
}

export const tokenMachine = setup({
  types: {} as {
    context: TokenContext;
    events: TokenEvent;
    input: TokenInput;
  },
  guards: {
    expirationReached: ({ context, event }) => {
      assert(event.type === 'EXPIRE', 'expirationReached guards EXPIRE');
      const at = rfc3339ToMillis(event.at);
      assert(at !== undefined, 'an EXPIRE carries an RFC 3339 time');
      return expirationReached(context.expiration, at);
    },
  },
  actions: {
    recordExpiry: assign({
      expiredAt: ({ event }) => {
        assert(event.type === 'EXPIRE', 'recordExpiry runs only on EXPIRE');
        return event.at;
      },
    }),
    recordExpiration: assign({
      expiration: ({ event }) => {
        assert(event.type === 'EXPIRATION_CHANGED', 'recordExpiration runs only on EXPIRATION_CHANGED');
        return event.expiration;
      },
    }),
    recordDeletion: assign({
      deletedAt: ({ event }) => {
        assert(event.type === 'DELETE', 'recordDeletion runs only on DELETE');
        return event.at;
      },
    }),
  },
}).createMachine({
  id: 'token',
  initial: 'valid',
  context: ({ input }) => ({ tokenId: input.tokenId, expiration: input.expiration, expiredAt: null, deletedAt: null }),
  states: {
    valid: {
      description: 'accepted for authentication and signing',
      on: {
        EXPIRE: { guard: 'expirationReached', target: 'expired', actions: 'recordExpiry' },
        EXPIRATION_CHANGED: { actions: 'recordExpiration' },
        DELETE: { target: 'deleted', actions: 'recordDeletion' },
      },
    },
    expired: {
      description: 'rejected for authentication, ignored for signing; the token cleaner deletes it',
      on: {
        EXPIRATION_CHANGED: { actions: 'recordExpiration' },
        DELETE: { target: 'deleted', actions: 'recordDeletion' },
      },
    },
    deleted: { type: 'final', description: 'the secret is gone from the store' },
  },
});

function isStateName(value: unknown): value is TokenStateName {
  return value === 'valid' || value === 'expired' || value === 'deleted';
}

/** Plain JSON, deep-frozen (see deletion.ts for why it goes through JSON). */
function persist(snapshot: ReturnType<typeof tokenMachine.resolveState>): PersistedToken {
  const plain: unknown = JSON.parse(JSON.stringify(tokenMachine.getPersistedSnapshot(snapshot)));
  const persisted = deepFreeze(plain as PersistedToken);
  assert(isStateName(persisted.value), `token machine state must be a known name, got ${String(persisted.value)}`);
  return persisted;
}

export const tokenGuardDescriptions = {
  expirationReached: 'the expiration is at or before the command time',
} as const;

/** The token machine's statechart (for the lifecycle inspector). */
export const tokenStatechart: Statechart = statechartOf(tokenMachine, tokenGuardDescriptions);

/** What a token in this state waits for, in plain words. */
export function tokenWaitingFor(persisted: Pick<PersistedToken, 'value' | 'context'>): string {
  const { expiration } = persisted.context;
  switch (persisted.value) {
    case 'valid':
      return expiration === null ? 'valid: no expiration; waiting for a delete' : `valid: waiting for the expiration ${expiration}`;
    case 'expired':
      return 'expired: waiting for the token cleaner (or a delete)';
    case 'deleted':
      return 'deleted: nothing (final state)';
  }
}

export function initialToken(input: TokenInput): PersistedToken {
  const [snapshot] = initialTransition(tokenMachine, input);
  const persisted = persist(snapshot);
  assert(persisted.value === 'valid', 'a new token starts valid');
  return persisted;
}

/** Restores `persisted`, applies `event` purely, and returns the next persisted snapshot. */
export function advanceToken(persisted: PersistedToken, event: TokenEvent): PersistedToken {
  assert(isStateName(persisted.value), 'persisted token snapshot must name a known state');
  const restored = tokenMachine.resolveState({ value: persisted.value, context: persisted.context });
  const [next] = transition(tokenMachine, restored, event);
  return persist(next);
}
