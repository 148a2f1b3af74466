// Owns: defaulting a custom resource from its structural schema as kube's
// schema/defaulting.Default does — in place, each default deep-copied; a property's default
// fills it when absent or null (unless nullable); list items and additionalProperties values
// that are null (and not nullable) take the items'/values' default; then it descends into every
// known field, list item and map value.
import { compileNode, isFields } from './node.ts';
import type { Node } from './node.ts';
import type { JsonSchemaProps } from './types.ts';

function copy(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  return structuredClone(value);
}

function isNonNullableNull(value: unknown, node: Node | undefined): boolean {
  return value === null && node !== undefined && !node.nullable;
}

function applyNode(value: unknown, node: Node | undefined): void {
  if (node === undefined) return;
  if (Array.isArray(value)) {
    const items = node.items;
    for (let index = 0; index < value.length; index++) {
      if (isNonNullableNull(value[index], items)) value[index] = items!.hasDefault ? copy(items!.default) : null;
      applyNode(value[index], items);
    }
    return;
  }
  if (!isFields(value)) return;
  const properties = node.properties;
  if (properties !== undefined) {
    for (const [name, property] of properties) {
      if (!property.hasDefault) continue;
      if (!(name in value) || isNonNullableNull(value[name], property)) value[name] = copy(property.default);
    }
  }
  const additional = node.additionalProperties;
  for (const key of Object.keys(value)) {
    const property = properties?.get(key);
    if (property !== undefined) applyNode(value[key], property);
    else if (additional !== undefined) {
      const schema = additional.schema;
      if (isNonNullableNull(value[key], schema)) value[key] = schema!.hasDefault ? copy(schema!.default) : null;
      applyNode(value[key], schema);
    }
  }
}

/** kube's structural defaulting of `value` (in place). */
export function applyDefaults(schema: JsonSchemaProps, value: unknown): void {
  applyNode(value, compileNode(schema));
}

