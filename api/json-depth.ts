// Owns: measuring how deeply a decoded value nests, without recursion (an explicit stack), for
// the values whose text was not scanned first: YAML bodies (whose aliases can nest, or even
// cycle), protobuf bodies, and what a patch builds. The limit is api/request-limits.ts's
// nestingDepthMax; the text of JSON bodies is checked before parsing by api/json-text.ts.

/**
 * The first object or array found nested deeper than `max` (a document `{"a":[1]}` is 2 deep),
 * or undefined when none is. Stops as soon as one is found, so a cycle (a YAML alias of an
 * ancestor) is reported rather than followed forever.
 */
export function firstTooDeep(value: unknown, max: number): 'object' | 'array' | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  if (max < 1) return Array.isArray(value) ? 'array' : 'object';
  const stack: { readonly value: object; readonly depth: number }[] = [{ value, depth: 1 }];
  // A value shared by several parents (YAML aliases) is walked again only when met deeper.
  const seenAt = new Map<object, number>();
  while (stack.length > 0) {
    const { value: current, depth } = stack.pop()!;
    if ((seenAt.get(current) ?? 0) >= depth) continue;
    seenAt.set(current, depth);
    for (const child of Object.values(current) as unknown[]) {
      if (child === null || typeof child !== 'object') continue;
      if (depth + 1 > max) return Array.isArray(child) ? 'array' : 'object';
      stack.push({ value: child, depth: depth + 1 });
    }
  }
  return undefined;
}

/** Whether `value` nests objects and arrays deeper than `max`. */
export function depthExceeds(value: unknown, max: number): boolean {
  return firstTooDeep(value, max) !== undefined;
}
