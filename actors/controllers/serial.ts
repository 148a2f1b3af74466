// Owns: running a controller's reconcile pass one at a time: a poke while a pass runs asks for
// exactly one more pass afterwards (changes that arrive meanwhile are all seen by it), and an
// error is reported and left for the next poke. Shared by the token controllers.
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
