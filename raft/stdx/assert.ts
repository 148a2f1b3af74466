// Owns: assertions for programmer errors (TigerBeetle style). Pure; imports nothing.
// A failed assertion is a bug, never an operating error: it throws AssertionError and the
// process (or the simulator) treats it as a finding. Operating errors get typed classes.

export class AssertionError extends Error {
  constructor(message: string) {
    super(`assertion failed: ${message}`);
    this.name = 'AssertionError';
  }
}

export function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new AssertionError(message);
}

export function unreachable(value: never, message = 'unreachable'): never {
  throw new AssertionError(`${message}: ${JSON.stringify(value)}`);
}
