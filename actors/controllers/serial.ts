// Owns: running a controller's reconcile work one at a time. Serial runs whole passes: a poke
// while a pass runs asks for exactly one more pass afterwards (changes that arrive meanwhile are
// all seen by it), and an error is reported and left for the next poke (the token
// controllers). KeyQueue runs one reconcile per changed key (below). WatchedPasses ties a
// Serial to the state's change events for the controllers that reconcile in whole passes.
import type { ChangeEvent } from '../events.ts';
import type { ControllerContext } from './controller.ts';
export class Serial {
  #running: Promise<void> | undefined;
  #again = false;
  readonly #work: () => Promise<void>;
  readonly #onError: (error: unknown) => void;

  constructor(work: () => Promise<void>, onError: (error: unknown) => void) {
    this.#work = work;
    this.#onError = onError;
  }

  poke(): void {
    if (this.#running !== undefined) {
      this.#again = true;
      return;
    }
    this.#running = (async () => {
      // Start on the next microtask, once #running is set: a pass whose first proposal applies
      // synchronously (and so pokes from inside it) must get "again", not a second pass alongside.
      await Promise.resolve();
      do {
        this.#again = false;
        try {
          await this.#work();
        } catch (error) {
          this.#onError(error);
        }
      } while (this.#again);
    })().finally(() => {
      this.#running = undefined;
    });
  }

  /** Resolves once no pass is running. */
  async idle(): Promise<void> {
    while (this.#running !== undefined) await this.#running;
  }
}

/**
 * Reconciles keys one at a time, in the order they were first marked: a key marked again while
 * it waits runs once; marked while it runs, it runs again afterwards. An error is reported and
 * the key left for its next change. Shared by the namespace, garbage-collector, serviceaccount
 * and root-CA controllers.
 */
export class KeyQueue<K> {
  readonly #dirty = new Set<K>();
  readonly #reconcile: (key: K) => Promise<void>;
  readonly #onError: (key: K, error: unknown) => void;
  #running: Promise<void> | undefined;
  #stopped = false;

  constructor(reconcile: (key: K) => Promise<void>, onError: (key: K, error: unknown) => void) {
    this.#reconcile = reconcile;
    this.#onError = onError;
  }

  mark(key: K): void {
    if (this.#stopped) return;
    this.#dirty.add(key);
    this.#running ??= (async () => {
      // Start on the next microtask, once #running is set (see Serial.poke).
      await Promise.resolve();
      while (!this.#stopped && this.#dirty.size > 0) {
        const next = this.#dirty.values().next().value as K;
        this.#dirty.delete(next);
        try {
          await this.#reconcile(next);
        } catch (error) {
          this.#onError(next, error);
        }
      }
    })().finally(() => {
      this.#running = undefined;
    });
  }

  /** Marks keys again after a stop (a controller restarted when its member leads again). */
  resume(): void {
    this.#stopped = false;
  }

  /** Drops what waits and resolves once the reconcile in progress is done. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#dirty.clear();
    await this.#running;
  }
}

/**
 * A controller's whole-pass loop over the replicated state: a pass at start, and another after
 * each batch of changes `touches` cares about, one at a time (Serial). Owns the subscription
 * and the stopped flag the controllers' passes check between objects.
 */
export class WatchedPasses {
  readonly #state: ControllerContext['state'];
  readonly #touches: (events: readonly ChangeEvent[]) => boolean;
  readonly #serial: Serial;
  #unsubscribe: (() => void) | undefined;
  #stopped = true;

  constructor(context: ControllerContext, touches: (events: readonly ChangeEvent[]) => boolean, pass: () => Promise<void>, failure: string) {
    this.#state = context.state;
    this.#touches = touches;
    this.#serial = new Serial(pass, (error) => context.log(failure, { error: (error as Error).message }));
  }

  /** True once stop() was called: a pass in progress should end early. */
  get stopped(): boolean {
    return this.#stopped;
  }

  start(): void {
    this.#stopped = false;
    this.#unsubscribe = this.#state.subscribe((events) => {
      if (this.#touches(events)) this.#serial.poke();
    });
    this.#serial.poke();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#unsubscribe?.();
    await this.idle();
  }

  /** Resolves once no pass is running (tests). */
  async idle(): Promise<void> {
    await this.#serial.idle();
  }
}

/** A controller whose work is WatchedPasses: start, stop and idle are the passes'. */
export abstract class PassController {
  abstract readonly name: string;
  protected abstract readonly passes: WatchedPasses;

  start(): void {
    this.passes.start();
  }

  async stop(): Promise<void> {
    await this.passes.stop();
  }

  /** Waits until no pass is running (tests). */
  async idle(): Promise<void> {
    await this.passes.idle();
  }
}
