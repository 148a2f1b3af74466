// Owns: reading the loosely typed JSON of a stored or requested object in the registry's
// strategies and printers: is a value an object of fields, the value as fields, list, text or
// number (with the zero value when it is something else), and JSON equality that ignores the
// order of object keys.
import type { JsonValue, KubeObject } from '../../actors/index.ts';

export type Fields = Record<string, JsonValue>;

export function isFields(value: JsonValue | undefined): value is Fields {
  return value !== null && value !== undefined && typeof value === 'object' && !Array.isArray(value);
}

export function fields(value: JsonValue | undefined): Fields {
  return isFields(value) ? value : {};
}

export function list(value: JsonValue | undefined): JsonValue[] {
  return Array.isArray(value) ? value : [];
}

/** A list's items as fields (an item that is not an object becomes {}). */
export function records(value: JsonValue | undefined): Fields[] {
  return Array.isArray(value) ? value.map((item) => fields(item)) : [];
}

export function text(value: JsonValue | undefined): string {
  return typeof value === 'string' ? value : '';
}

export function numberOf(value: JsonValue | undefined): number {
  return typeof value === 'number' ? value : 0;
}

/** The object's spec as fields ({} when it has none). */
export function specOf(object: KubeObject): Fields {
  return fields(object['spec'] as JsonValue | undefined);
}

/** A value with object keys sorted (and keys holding undefined dropped), so two equal objects stringify alike. */
export function canonical(value: JsonValue | undefined): JsonValue | undefined {
  if (Array.isArray(value)) return value.map((item) => canonical(item) ?? null);
  if (!isFields(value)) return value;
  return Object.fromEntries(Object.keys(value).sort().filter((key) => value[key] !== undefined).map((key) => [key, canonical(value[key]) ?? null]));
}

/** JSON equality, whatever the order of object keys. */
export function sameJson(left: JsonValue | undefined, right: JsonValue | undefined): boolean {
  return JSON.stringify(canonical(left)) === JSON.stringify(canonical(right));
}
