// Owns: how a long-running kstore role waits to be told to stop: the first SIGTERM or SIGINT
// resolves the wait (the role then shuts down in order); the handlers are removed again, so a
// second signal during shutdown gets node's default behaviour and ends the process.
export function untilStopSignal(): Promise<void> {
  return new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off('SIGTERM', stop);
      process.off('SIGINT', stop);
      resolve();
    };
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
  });
}
