// Owns: small pure helpers over plain JSON values: deep freezing (how actors/ hands stored
// objects out without copying) and structural equality (the no-op-write check).
// Must not: copy or mutate what it inspects (freezing aside), or handle non-JSON values
// (functions, Maps, cycles): everything stored in actors/ is plain JSON.

/**
 * Freezes `value` and everything reachable from it, in place, and returns it. Already frozen
 * subtrees are skipped, so freezing a new version that shares parts with an old one costs
 * only the new parts.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const child of Object.values(value as object)) deepFreeze(child);
  return value;
}

/** Structural equality of two JSON values; object key order is ignored, array order is not. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) return arraysEqual(a, b);
  return objectsEqual(a as Record<string, unknown>, b as Record<string, unknown>);
}

function arraysEqual(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  return a.every((item, i) => jsonEqual(item, b[i]));
}

function objectsEqual(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const aKeys = Object.keys(a).filter((k) => a[k] !== undefined);
  const bKeys = Object.keys(b).filter((k) => b[k] !== undefined);
  if (aKeys.length !== bKeys.length) return false;
  return aKeys.every((k) => Object.hasOwn(b, k) && jsonEqual(a[k], b[k]));
}
