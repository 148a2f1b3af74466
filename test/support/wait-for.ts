// The only permitted kind of wait in tests: poll a condition until it holds or a deadline
// passes. Never sleep to synchronise.

export interface WaitForOptions {
  /** Give up after this long (the error names `description`). */
  readonly timeoutMs: number;
  /** Time between polls; defaults to 50 ms. */
  readonly intervalMs?: number;
  /** What is being waited for, for the error message. */
  readonly description: string;
  /** Extra diagnostics appended to the timeout error (e.g. a process's captured output). */
  readonly diagnostics?: () => string;
}

const defaultIntervalMs = 50;

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Polls `condition` until it returns a truthy value, and returns that value. A condition that
 * throws counts as not yet satisfied; its last error is reported if the deadline passes.
 */
export async function waitFor<T>(
  condition: () => T | Promise<T>,
  options: WaitForOptions,
): Promise<NonNullable<Exclude<T, false | '' | 0>>> {
  const deadline = Date.now() + options.timeoutMs;
  const intervalMs = options.intervalMs ?? defaultIntervalMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await condition();
      if (value) return value as NonNullable<Exclude<T, false | '' | 0>>;
      lastError = undefined;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() >= deadline) {
      const cause = lastError === undefined ? '' : `; last error: ${lastError instanceof Error ? lastError.message : String(lastError)}`;
      const extra = options.diagnostics ? `\n${options.diagnostics()}` : '';
      throw new Error(`timed out after ${options.timeoutMs} ms waiting for ${options.description}${cause}${extra}`);
    }
    await pause(Math.min(intervalMs, Math.max(0, deadline - Date.now())));
  }
}
