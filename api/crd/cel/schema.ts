// Owns: the parts of a CRD openAPIV3Schema that CEL validation rules read, and their mapping to
// CEL declaration types the way kube-apiserver's SchemaDeclType maps a structural schema: objects
// with declared properties become object types with (escaped) fields, additionalProperties a
// map(string, V), arrays a list, int-or-string dyn, date/date-time timestamps, duration durations,
// format byte bytes; every type carries the size bounds the cost estimator reads (maxLength ×4,
// maxItems, maxProperties, or the bounds derived from the 3 MiB request limit).

/** One `x-kubernetes-validations` entry. */
export interface CelValidationRule {
  readonly rule?: string;
  readonly message?: string;
  readonly messageExpression?: string;
  readonly reason?: string;
  readonly fieldPath?: string;
  readonly optionalOldSelf?: boolean;
}

/** The parts of a JSONSchemaProps (as plain JSON) that CEL validation reads. */
export interface CelSchema {
  readonly type?: string;
  readonly format?: string;
  readonly properties?: Readonly<Record<string, CelSchema>>;
  readonly items?: CelSchema;
  readonly additionalProperties?: CelSchema | boolean;
  readonly required?: readonly string[];
  readonly maxLength?: number;
  readonly maxItems?: number;
  readonly maxProperties?: number;
  readonly enum?: readonly unknown[];
  readonly nullable?: boolean;
  readonly default?: unknown;
  readonly 'x-kubernetes-int-or-string'?: boolean;
  readonly 'x-kubernetes-preserve-unknown-fields'?: boolean;
  readonly 'x-kubernetes-embedded-resource'?: boolean;
  readonly 'x-kubernetes-list-type'?: string;
  readonly 'x-kubernetes-list-map-keys'?: readonly string[];
  readonly 'x-kubernetes-map-type'?: string;
  readonly 'x-kubernetes-validations'?: readonly CelValidationRule[];
}

/** apiserver's celconfig.MaxRequestSizeBytes. */
export const maxRequestSizeBytes = 3 * 1024 * 1024;
const unboundedLength = maxRequestSizeBytes - 2;

const minStringSize = 2;
const minBoolSize = 4;
const minNumberSize = 1;
const minDurationSizeJson = 3;
const maxDurationSizeJson = 32;
const jsonDateSize = 12;
const minDatetimeSizeJson = 21;
const maxDatetimeSizeJson = 32;

export type DeclKind = 'object' | 'map' | 'list' | 'string' | 'bytes' | 'int' | 'double' | 'bool' | 'timestamp' | 'duration' | 'dyn';

export interface DeclField {
  /** The JSON property name. */
  readonly property: string;
  readonly type: DeclType;
}

/** A CEL declaration type derived from a schema node (kube's apiserver/pkg/cel DeclType). */
export interface DeclType {
  readonly kind: DeclKind;
  /** The schema node the type was derived from (for objects: with kind/apiVersion/metadata added at resource roots). */
  readonly schema: CelSchema;
  /** Object fields by escaped CEL name. */
  readonly fields: ReadonlyMap<string, DeclField>;
  /** List items or map values. */
  readonly elem: DeclType | undefined;
  /** Maximum size: string bytes, list items, map entries (0 for objects and scalars). */
  readonly maxElements: number;
  readonly minSerializedSize: number;
  /** For objects: the engine type name assigned when registered. */
  objectTypeName: string | undefined;
}

const celReservedSymbols = new Set([
  'true', 'false', 'null', 'in', 'as', 'break', 'const', 'continue', 'else', 'for', 'function', 'if',
  'import', 'let', 'loop', 'package', 'namespace', 'return', 'var', 'void', 'while',
]);

/** kube's cel.Escape: a property name as a CEL identifier, or undefined when it cannot be one. */
export function escapeProperty(name: string): string | undefined {
  if (name.length === 0 || (name[0]! >= '0' && name[0]! <= '9')) return undefined;
  if (celReservedSymbols.has(name)) return `__${name}__`;
  if (!/^[a-zA-Z0-9_./-]*$/.test(name)) return undefined;
  return name.replace(/__|[./-]/g, (match) => {
    switch (match) {
      case '__': return '__underscores__';
      case '.': return '__dot__';
      case '-': return '__dash__';
      default: return '__slash__';
    }
  });
}

function schemaType(schema: CelSchema): string {
  return schema.type ?? '';
}

function zeroIfNegative(value: number): number {
  return value < 0 ? 0 : value;
}

/** kube's WithTypeAndObjectMeta: a resource root always has apiVersion, kind and metadata.name/generateName. */
export function withTypeAndObjectMeta(schema: CelSchema): CelSchema {
  const props = schema.properties;
  const metadata = props?.['metadata'];
  if (props !== undefined && props['kind']?.type === 'string' && props['apiVersion']?.type === 'string'
    && metadata?.type === 'object' && metadata.properties !== undefined
    && metadata.properties['name']?.type === 'string' && metadata.properties['generateName']?.type === 'string') {
    return schema;
  }
  const stringType: CelSchema = { type: 'string' };
  return {
    ...schema,
    properties: {
      ...props,
      kind: stringType,
      apiVersion: stringType,
      metadata: { type: 'object', properties: { name: stringType, generateName: stringType } },
    },
  };
}

function simple(kind: DeclKind, schema: CelSchema, minSerializedSize: number, maxElements = 0): DeclType {
  return { kind, schema, fields: new Map(), elem: undefined, maxElements, minSerializedSize, objectTypeName: undefined };
}

function estimateMaxStringLength(schema: CelSchema): number {
  if (schema['x-kubernetes-int-or-string'] === true) return unboundedLength;
  switch (schema.format) {
    case 'duration': return maxDurationSizeJson;
    case 'date': return jsonDateSize;
    case 'date-time': return maxDatetimeSizeJson;
    default: return unboundedLength;
  }
}

function utf8Length(text: string): number {
  let length = 0;
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    length += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
  }
  return length;
}

/**
 * kube's SchemaDeclType: the CEL type of a schema node, or undefined when the node has none (no
 * type, or an array without items): such properties are left out of their object's type.
 */
export function schemaDeclType(schema: CelSchema, isResourceRoot: boolean): DeclType | undefined {
  if (schema['x-kubernetes-int-or-string'] === true) return simple('dyn', schema, 1, unboundedLength);
  const node = isResourceRoot ? withTypeAndObjectMeta(schema) : schema;
  switch (schemaType(node)) {
    case 'array': {
      if (node.items === undefined) return undefined;
      const items = schemaDeclType(node.items, node.items['x-kubernetes-embedded-resource'] === true);
      if (items === undefined) return undefined;
      const maxItems = node.maxItems !== undefined
        ? zeroIfNegative(node.maxItems)
        : Math.floor(unboundedLength / (items.minSerializedSize + 1));
      return { kind: 'list', schema: node, fields: new Map(), elem: items, maxElements: maxItems, minSerializedSize: 2, objectTypeName: undefined };
    }
    case 'object': {
      const additional = node.additionalProperties;
      if (typeof additional === 'object') {
        const values = schemaDeclType(additional, additional['x-kubernetes-embedded-resource'] === true);
        if (values === undefined) return undefined;
        const maxProperties = node.maxProperties !== undefined
          ? zeroIfNegative(node.maxProperties)
          : Math.floor(unboundedLength / (values.minSerializedSize + 6));
        return { kind: 'map', schema: node, fields: new Map(), elem: values, maxElements: maxProperties, minSerializedSize: 2, objectTypeName: undefined };
      }
      const fields = new Map<string, DeclField>();
      const required = new Set(node.required ?? []);
      let minSerializedSize = 2;
      for (const [name, property] of Object.entries(node.properties ?? {})) {
        const fieldType = schemaDeclType(property, property['x-kubernetes-embedded-resource'] === true);
        if (fieldType === undefined) continue;
        const escaped = escapeProperty(name);
        if (escaped !== undefined) fields.set(escaped, { property: name, type: fieldType });
        if (required.has(name) && property.default === undefined) minSerializedSize += name.length + fieldType.minSerializedSize + 4;
      }
      return { kind: 'object', schema: node, fields, elem: undefined, maxElements: 0, minSerializedSize, objectTypeName: undefined };
    }
    case 'string':
      switch (node.format) {
        case 'byte':
          return simple('bytes', node, minStringSize, node.maxLength !== undefined ? zeroIfNegative(node.maxLength) : estimateMaxStringLength(node));
        case 'duration':
          return simple('duration', node, minDurationSizeJson, estimateMaxStringLength(node));
        case 'date':
          return simple('timestamp', node, jsonDateSize, estimateMaxStringLength(node));
        case 'date-time':
          return simple('timestamp', node, minDatetimeSizeJson, estimateMaxStringLength(node));
        default: {
          let maxLength: number;
          if (node.maxLength !== undefined) maxLength = zeroIfNegative(node.maxLength) * 4;
          else if (node.enum !== undefined && node.enum.length > 0) {
            maxLength = 0;
            for (const value of node.enum) if (typeof value === 'string') maxLength = Math.max(maxLength, utf8Length(value));
          } else maxLength = estimateMaxStringLength(node);
          return simple('string', node, minStringSize, maxLength);
        }
      }
    case 'boolean': return simple('bool', node, minBoolSize);
    case 'number': return simple('double', node, minNumberSize);
    case 'integer': return simple('int', node, minNumberSize);
    default: return undefined;
  }
}

/** The declared validation rules of a node. */
export function rulesOf(schema: CelSchema): readonly CelValidationRule[] {
  return schema['x-kubernetes-validations'] ?? [];
}

/** Whether the schema or anything below it declares validation rules (kube's hasXValidations). */
export function hasValidations(schema: CelSchema | undefined): boolean {
  if (schema === undefined) return false;
  if (rulesOf(schema).length > 0) return true;
  if (hasValidations(schema.items)) return true;
  if (typeof schema.additionalProperties === 'object' && hasValidations(schema.additionalProperties)) return true;
  for (const property of Object.values(schema.properties ?? {})) if (hasValidations(property)) return true;
  return false;
}
