// Owns: small pure helpers over plain JSON values: deep freezing (how actors/ hands stored
// objects out without copying) and structural equality (the no-op-write check).
// Must not: copy or mutate what it inspects (freezing aside), or handle non-JSON values
// (functions, Maps, cycles): everything stored in actors/ is plain JSON. Both walk with an
// explicit stack, not recursion, so a value's depth cannot overflow the call stack (the API
// tier bounds what it stores, but a snapshot or log replay is read back whatever its depth).

/**
 * Freezes `value` and everything reachable from it, in place, and returns it. Already frozen
 * subtrees are skipped, so freezing a new version that shares parts with an old one costs
 * only the new parts.
 */
export function deepFreeze<T>(value: T): T {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const current = pending.pop();
    if (typeof current !== 'object' || current === null || Object.isFrozen(current)) continue;
    Object.freeze(current);
    for (const child of Object.values(current)) pending.push(child);
  }
  return value;
}

/** Structural equality of two JSON values; object key order is ignored, array order is not. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  const pairs: [unknown, unknown][] = [[a, b]];
  while (pairs.length > 0) {
    const [left, right] = pairs.pop()!;
    if (left === right) continue;
    if (typeof left !== 'object' || typeof right !== 'object' || left === null || right === null) return false;
    if (Array.isArray(left) !== Array.isArray(right)) return false;
    if (Array.isArray(left) && Array.isArray(right)) {
      if (left.length !== right.length) return false;
      for (let index = 0; index < left.length; index++) pairs.push([left[index], right[index]]);
      continue;
    }
    const leftRecord = left as Record<string, unknown>;
    const rightRecord = right as Record<string, unknown>;
    const leftKeys = Object.keys(leftRecord).filter((key) => leftRecord[key] !== undefined);
    const rightKeys = Object.keys(rightRecord).filter((key) => rightRecord[key] !== undefined);
    if (leftKeys.length !== rightKeys.length) return false;
    for (const key of leftKeys) {
      if (!Object.hasOwn(rightRecord, key)) return false;
      pairs.push([leftRecord[key], rightRecord[key]]);
    }
  }
  return true;
}
