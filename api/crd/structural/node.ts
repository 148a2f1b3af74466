// Owns: the compiled form of a schema node — each JSONSchemaProps object read once (keywords of
// the wrong JSON type are ignored, as a typed decode would have refused them earlier) into a
// Node with its properties in a Map, compiled lazily and cached per schema object, so walking a
// custom resource costs no schema parsing.
import type { JsonSchemaProps } from './types.ts';

export type Fields = Record<string, unknown>;

export function isFields(value: unknown): value is Fields {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** additionalProperties: `true`/`false` or a schema (Allows is true for a schema). */
export interface AdditionalProperties {
  readonly allows: boolean;
  readonly schema: Node | undefined;
}

export interface Node {
  readonly raw: Fields;
  readonly type: string;
  readonly format: string;
  readonly nullable: boolean;
  readonly hasDefault: boolean;
  readonly default: unknown;
  readonly enum: readonly unknown[] | undefined;
  readonly maximum: number | undefined;
  readonly exclusiveMaximum: boolean;
  readonly minimum: number | undefined;
  readonly exclusiveMinimum: boolean;
  readonly multipleOf: number | undefined;
  readonly maxLength: number | undefined;
  readonly minLength: number | undefined;
  readonly pattern: string;
  readonly maxItems: number | undefined;
  readonly minItems: number | undefined;
  readonly uniqueItems: boolean;
  readonly maxProperties: number | undefined;
  readonly minProperties: number | undefined;
  readonly required: readonly string[];
  readonly preserveUnknownFields: boolean;
  readonly embeddedResource: boolean;
  readonly intOrString: boolean;
  readonly listType: string | undefined;
  readonly listMapKeys: readonly string[];
  readonly mapType: string | undefined;
  /** Declared properties, in the schema's order. */
  readonly properties: ReadonlyMap<string, Node> | undefined;
  readonly items: Node | undefined;
  readonly additionalProperties: AdditionalProperties | undefined;
  readonly allOf: readonly Node[];
  readonly anyOf: readonly Node[];
  readonly oneOf: readonly Node[];
  readonly not: Node | undefined;
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function optionalText(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function numberOf(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

const cache = new WeakMap<object, Node>();
const emptyFields: Fields = {};

function nodes(value: unknown): Node[] {
  return Array.isArray(value) ? value.filter(isFields).map(compileNode) : [];
}

/** The compiled node of a schema object (cached per object; a non-object reads as the empty schema). */
export function compileNode(schema: JsonSchemaProps | Fields | unknown): Node {
  const raw = isFields(schema) ? schema : emptyFields;
  const cached = cache.get(raw);
  if (cached !== undefined) return cached;
  let properties: Map<string, Node> | undefined;
  let items: Node | undefined;
  let additionalProperties: AdditionalProperties | undefined;
  let allOf: Node[] | undefined;
  let anyOf: Node[] | undefined;
  let oneOf: Node[] | undefined;
  let not: Node | undefined | null = null;
  const node: Node = {
    raw,
    type: text(raw['type']),
    format: text(raw['format']),
    nullable: raw['nullable'] === true,
    hasDefault: 'default' in raw && raw['default'] !== null && raw['default'] !== undefined,
    default: raw['default'],
    enum: Array.isArray(raw['enum']) ? raw['enum'] : undefined,
    maximum: numberOf(raw['maximum']),
    exclusiveMaximum: raw['exclusiveMaximum'] === true,
    minimum: numberOf(raw['minimum']),
    exclusiveMinimum: raw['exclusiveMinimum'] === true,
    multipleOf: numberOf(raw['multipleOf']),
    maxLength: numberOf(raw['maxLength']),
    minLength: numberOf(raw['minLength']),
    pattern: text(raw['pattern']),
    maxItems: numberOf(raw['maxItems']),
    minItems: numberOf(raw['minItems']),
    uniqueItems: raw['uniqueItems'] === true,
    maxProperties: numberOf(raw['maxProperties']),
    minProperties: numberOf(raw['minProperties']),
    required: strings(raw['required']),
    preserveUnknownFields: raw['x-kubernetes-preserve-unknown-fields'] === true,
    embeddedResource: raw['x-kubernetes-embedded-resource'] === true,
    intOrString: raw['x-kubernetes-int-or-string'] === true,
    listType: optionalText(raw['x-kubernetes-list-type']),
    listMapKeys: strings(raw['x-kubernetes-list-map-keys']),
    mapType: optionalText(raw['x-kubernetes-map-type']),
    get properties() {
      if (properties === undefined && isFields(raw['properties'])) {
        const declared = raw['properties'];
        properties = new Map();
        for (const name of Object.keys(declared)) properties.set(name, compileNode(declared[name]));
      }
      return properties;
    },
    get items() {
      if (items === undefined && isFields(raw['items'])) items = compileNode(raw['items']);
      return items;
    },
    get additionalProperties() {
      if (additionalProperties === undefined) {
        const value = raw['additionalProperties'];
        if (typeof value === 'boolean') additionalProperties = { allows: value, schema: undefined };
        else if (isFields(value)) additionalProperties = { allows: true, schema: compileNode(value) };
      }
      return additionalProperties;
    },
    get allOf() {
      allOf ??= nodes(raw['allOf']);
      return allOf;
    },
    get anyOf() {
      anyOf ??= nodes(raw['anyOf']);
      return anyOf;
    },
    get oneOf() {
      oneOf ??= nodes(raw['oneOf']);
      return oneOf;
    },
    get not() {
      if (not === null) not = isFields(raw['not']) ? compileNode(raw['not']) : undefined;
      return not;
    },
  };
  cache.set(raw, node);
  return node;
}
