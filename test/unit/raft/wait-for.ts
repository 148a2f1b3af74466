// Waits on a condition with a deadline instead of sleeping (STYLE rule 13).
/** Poll interval: short enough for fast tests, long enough not to spin the event loop. */
const pollIntervalMs = 5;

export async function waitFor(condition: () => boolean, deadlineMs: number, what: string): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${deadlineMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, pollIntervalMs));
  }
}
