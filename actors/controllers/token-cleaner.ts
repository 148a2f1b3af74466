// Owns: the two leader-only loops of the bootstrap token lifecycle (spec: Bootstrap token
// lifecycle), both acting only by proposing commands:
//  - TokenExpirer: when the leader's clock reaches the earliest expiration of a valid token, it
//    proposes `expireTokens {at: now}`; apply moves every token due by then to expired, so all
//    replicas agree on when each token expired (the time is in the log, not in apply). Always
//    runs (it is the lifecycle's clock, not a kube-controller-manager controller).
//  - TokenCleaner (kube-controller-manager's `tokencleaner`, off by default there and here):
//    deletes token secrets whose token machine is expired, with a uid precondition (as kube's
//    cleaner), so a secret re-created under the same name is never deleted by mistake.
// Timers come from an injectable `ControllerTimers` so tests drive them with a fake clock.
// Must not: log a token secret (only names and ids are logged).
import type { ClusterState } from '../cluster-state.ts';
import type { KubeObject, ObjectKey } from '../object.ts';
import type { TokenLifecycle } from '../resource-actor.ts';
import type { ChangeEvent } from '../events.ts';
import { bootstrapTokenNamespace, expirationMillis, isBootstrapTokenKey } from '../machines/token-secret.ts';
import type { Controller, ControllerContext } from './controller.ts';
import { Serial } from './serial.ts';

/** Who the token controllers' commands name as their cause (kube-controller-manager's service account). */
export const tokenCleanerIdentity = 'system:serviceaccount:kube-system:token-cleaner';

/** One-shot timers; `set` returns the function that cancels it. */
export interface ControllerTimers {
  set(delayMs: number, callback: () => void): () => void;
}

export const realTimers: ControllerTimers = {
  set(delayMs, callback) {
    const timer = setTimeout(callback, delayMs);
    timer.unref?.();
    return () => clearTimeout(timer);
  },
};

/** Longest single wait: setTimeout's limit is 2^31-1 ms; a far expiration is re-planned hourly. */
const maxWaitMs = 3_600_000;

export interface TokenSecretEntry {
  readonly key: ObjectKey;
  readonly object: KubeObject;
  readonly token: TokenLifecycle | undefined;
}

/** Every bootstrap token secret (kube-system, bootstrap-token-*) with its token lifecycle, in key order. */
export function tokenSecrets(state: ClusterState): TokenSecretEntry[] {
  const entries: TokenSecretEntry[] = [];
  for (const object of state.list({ group: '', resource: 'secrets', namespace: bootstrapTokenNamespace }).items) {
    const key: ObjectKey = { group: '', resource: 'secrets', namespace: bootstrapTokenNamespace, name: object.metadata.name ?? '' };
    if (!isBootstrapTokenKey(key)) continue;
    entries.push({ key, object, token: state.lifecycleOf(key)?.token });
  }
  return entries;
}

export function touchesTokens(events: readonly ChangeEvent[]): boolean {
  return events.some((event) => isBootstrapTokenKey(event.key));
}

export class TokenExpirer implements Controller {
  readonly name = 'token-expiry';
  readonly #context: ControllerContext;
  readonly #timers: ControllerTimers;
  readonly #serial: Serial;
  #cancelTimer: (() => void) | undefined;
  #unsubscribe: (() => void) | undefined;
  #stopped = true;

  constructor(context: ControllerContext, timers: ControllerTimers = realTimers) {
    this.#context = context;
    this.#timers = timers;
    this.#serial = new Serial(() => this.#reconcile(), (error) => context.log('token expiry failed; retried on the next change', { error: (error as Error).message }));
  }

  start(): void {
    this.#stopped = false;
    this.#unsubscribe = this.#context.state.subscribe((events) => {
      if (touchesTokens(events)) this.#serial.poke();
    });
    this.#serial.poke();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#unsubscribe?.();
    this.#cancelTimer?.();
    this.#cancelTimer = undefined;
    await this.#serial.idle();
  }

  /** Waits until no reconcile is running (tests). */
  async idle(): Promise<void> {
    await this.#serial.idle();
  }

  /** The earliest expiration (ms) among valid tokens; unparseable ones are due at once. */
  #nextDue(): number | undefined {
    let due: number | undefined;
    for (const { object, token } of tokenSecrets(this.#context.state)) {
      // Only a valid token machine can expire (a record restored from a snapshot older than
      // token machines has none; the authenticator still checks its expiration by the clock).
      if (token === undefined || token.state !== 'valid' || object.metadata.deletionTimestamp !== undefined) continue;
      const expiration = token.context.expiration;
      if (expiration === null) continue;
      const millis = expirationMillis(expiration) ?? Number.NEGATIVE_INFINITY;
      due = due === undefined ? millis : Math.min(due, millis);
    }
    return due;
  }

  async #reconcile(): Promise<void> {
    if (this.#stopped) return;
    this.#cancelTimer?.();
    this.#cancelTimer = undefined;
    const due = this.#nextDue();
    if (due === undefined) return;
    const now = this.#context.now();
    const nowMillis = expirationMillis(now);
    if (nowMillis === undefined) throw new Error(`the controller clock gave ${now}, not RFC 3339`);
    if (due <= nowMillis) {
      await this.#context.propose({ type: 'expireTokens', at: now, by: tokenCleanerIdentity });
      // The apply emits MODIFIED events for what expired, which pokes this loop to plan the next.
      return;
    }
    if (this.#stopped) return;
    this.#cancelTimer = this.#timers.set(Math.min(due - nowMillis, maxWaitMs), () => this.#serial.poke());
  }
}

export class TokenCleaner implements Controller {
  readonly name = 'tokencleaner';
  readonly #context: ControllerContext;
  readonly #serial: Serial;
  #unsubscribe: (() => void) | undefined;
  #stopped = true;

  constructor(context: ControllerContext) {
    this.#context = context;
    this.#serial = new Serial(() => this.#reconcile(), (error) => context.log('token cleaner failed; retried on the next change', { error: (error as Error).message }));
  }

  start(): void {
    this.#stopped = false;
    this.#unsubscribe = this.#context.state.subscribe((events) => {
      if (touchesTokens(events)) this.#serial.poke();
    });
    this.#serial.poke();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#unsubscribe?.();
    await this.#serial.idle();
  }

  async idle(): Promise<void> {
    await this.#serial.idle();
  }

  async #reconcile(): Promise<void> {
    for (const { key, object, token } of tokenSecrets(this.#context.state)) {
      if (this.#stopped) return;
      if (token?.state !== 'expired' || object.metadata.deletionTimestamp !== undefined) continue;
      const uid = object.metadata.uid;
      const result = await this.#context.propose({
        type: 'delete', key, at: this.#context.now(), by: tokenCleanerIdentity, ...(uid === undefined ? {} : { preconditions: { uid } }),
      });
      this.#context.log('deleted expired bootstrap token secret', { secret: `${key.namespace}/${key.name}`, result: result.type });
    }
  }
}
