// Owns: building kstore's JSON schema (the JsonSchema of ./schemas.ts that ajv, the field manager
// and the OpenAPI documents read) of any message, and so of any kind, from the generated kind
// descriptions (./generated/): Go embedded (inline) structs merged into their parent, the
// messages with a JSON form of their own (Time and MicroTime, Duration, Quantity, IntOrString,
// RawExtension, FieldsV1, GroupVersion, wrapped lists), scalars with kube's formats, maps and
// lists with their list, map and strategic merge extensions, string enums, required fields by
// the rule kube's OpenAPI generator applies, and kstore's own short descriptions
// (./schema-descriptions.ts). One builder names each message once (JsonSchema.definition, kube's
// OpenAPI definition name) and returns the same node for every use, so a document built from it
// publishes every type once; a message met again while it is being built (a recursive type:
// apiextensions' JSONSchemaProps) becomes an open object there instead of looping, so every schema
// is a finite tree that ajv compiles and the OpenAPI documents publish as it is.
import { messageDescriptions } from './generated/index.ts';
import type { FieldDescription, MessageDescription, MessageName, ProtoScalarType } from './kind-description.ts';
import { fieldDescriptions, typeDescriptions } from './schema-descriptions.ts';
import type { JsonSchema } from './schemas.ts';

/**
 * kube's OpenAPI definition name of a message: `k8s.io.api.core.v1.Probe` → `io.k8s.api.core.v1.Probe`.
 * The module's name is the Go one (`k8s.io.kube_aggregator.…` → `io.k8s.kube-aggregator.…`): a
 * protobuf package writes its dashes as underscores.
 */
export function definitionNameOf(message: MessageName): string {
  const [module, ...rest] = message.slice('k8s.io.'.length).split('.');
  return ['io.k8s', module!.replaceAll('_', '-'), ...rest].join('.');
}

/**
 * Whether kube's OpenAPI lists a field as required: `+optional` makes it optional, `+required`
 * required, and a field with neither is required unless its json tag has omitempty. kube's
 * OpenAPI generator reads only those two markers, so a field marked `+optional` that also carries
 * a kubebuilder Required marker (PortStatus.error) is optional there.
 */
export function isRequiredField(field: FieldDescription): boolean {
  if (field.optional) return false;
  if (field.required) return true;
  return !field.omitEmpty;
}

/** The JSON fields of a message in Go order, inline (embedded) messages' fields in place. */
export function jsonFieldsOf(
  message: MessageDescription, messages: MessageLookup = messageDescriptions,
): { readonly json: string; readonly field: FieldDescription; readonly owner: MessageDescription }[] {
  return message.fields.flatMap((field) => {
    if (field.inline) {
      const inlined = messages.get(field.type as MessageName);
      if (inlined === undefined) throw new Error(`${message.name}: inline field of unknown type ${field.type}`);
      return jsonFieldsOf(inlined, messages);
    }
    return field.json === undefined ? [] : [{ json: field.json, field, owner: message }];
  });
}

function scalarSchema(type: ProtoScalarType): JsonSchema {
  switch (type) {
    case 'string': return { type: 'string' };
    case 'bytes': return { type: 'string', format: 'byte' };
    case 'bool': return { type: 'boolean' };
    case 'int32': case 'uint32': return { type: 'integer', format: 'int32' };
    case 'int64': case 'uint64': return { type: 'integer', format: 'int64' };
    case 'double': return { type: 'number', format: 'double' };
    case 'float': return { type: 'number', format: 'float' };
  }
}

const scalarTypes = new Set<string>(['string', 'bytes', 'bool', 'int32', 'uint32', 'int64', 'uint64', 'double', 'float']);

function isScalar(type: string): type is ProtoScalarType {
  return scalarTypes.has(type);
}

/**
 * The keywords of a message's schema that apply only to a JSON object (its properties, and that
 * no others are allowed): an "X or schema" value is checked as the schema when it is an object.
 */
function objectKeywords(schema: JsonSchema): JsonSchema {
  return {
    ...(schema.properties !== undefined ? { properties: schema.properties } : {}),
    ...(schema.additionalProperties !== undefined ? { additionalProperties: schema.additionalProperties } : {}),
  };
}

/**
 * The schema of a message whose JSON is not an object of its fields, in the shapes kstore's
 * schemas have always used: Time and MicroTime a nullable date-time ("" and null decode as the
 * zero time), IntOrString an integer or a string, Quantity a string or a number, Duration and
 * GroupVersion strings, RawExtension, Unknown and FieldsV1 free-form objects, a wrapped list
 * (metav1.Verbs) a plain list of its items. apiextensions' JSON is any value, and its "schema or
 * X" values have no type (kube publishes none, and its decoder leaves a value of another type
 * unset, except JSONSchemaPropsOrBool's, which refuses it): an object is checked as the schema
 * message (`schema`, the message of their field `schema`), a list's items as the schema
 * (JSONSchemaPropsOrArray) or as strings (JSONSchemaPropsOrStringArray).
 */
function jsonFormSchema(message: MessageDescription, schemaOf: (type: MessageName) => JsonSchema): JsonSchema {
  const definition = definitionNameOf(message.name);
  const schemaField = (): JsonSchema => {
    const field = message.fields.find((candidate) => candidate.protoName === 'schema');
    if (field === undefined || isScalar(field.type)) throw new Error(`${message.name}: no schema field`);
    return schemaOf(field.type);
  };
  switch (message.jsonForm) {
    case 'json': return { definition };
    case 'schemaOrBool': return { ...objectKeywords(schemaField()), definition };
    case 'schemaOrArray': {
      const schema = schemaField();
      return { ...objectKeywords(schema), items: schema, definition };
    }
    case 'schemaOrStringArray': return { ...objectKeywords(schemaField()), items: { type: 'string' }, definition };
    case 'time': case 'microTime': return { type: ['string', 'null'], format: 'date-time-or-empty', definition };
    case 'intOrString': return { type: ['integer', 'string'], definition };
    case 'quantity': return { type: ['number', 'string'], definition };
    case 'duration': case 'groupVersion': return { type: 'string', definition };
    case 'rawExtension': case 'unknown': case 'fieldsV1': return { type: 'object', definition };
    case 'array': {
      const items = message.fields[0];
      if (items === undefined || !isScalar(items.type)) throw new Error(`${message.name}: a wrapped list of ${String(items?.type)}`);
      return { type: 'array', items: scalarSchema(items.type) };
    }
    case undefined: throw new Error(`${message.name} has no JSON form of its own`);
  }
}

/** The messages a builder reads: the generated descriptions, or (in tests) a set of one's own. */
export type MessageLookup = ReadonlyMap<MessageName, MessageDescription>;

/** Builds and remembers the schemas of messages; one builder per set of documents that share definitions. */
export class SchemaBuilder {
  private readonly built = new Map<MessageName, JsonSchema>();
  private readonly building = new Set<MessageName>();

  private readonly messages: MessageLookup;

  constructor(messages: MessageLookup = messageDescriptions) {
    this.messages = messages;
  }

  /** The schema of a message (named by its definition), built once. */
  messageSchema(name: MessageName): JsonSchema {
    const known = this.built.get(name);
    if (known !== undefined) return known;
    const message = this.messages.get(name);
    if (message === undefined) throw new Error(`no description of message ${name}`);
    // A message met again while its own fields are being built: an open object (any value, for a
    // message with a JSON form of its own: JSONSchemaPropsOrArray) breaks the cycle.
    if (this.building.has(name)) return message.jsonForm === undefined ? { type: 'object' } : {};
    this.building.add(name);
    try {
      const schema = message.jsonForm === undefined
        ? this.structSchema(message)
        : jsonFormSchema(message, (type) => this.messageSchema(type));
      this.built.set(name, schema);
      return schema;
    } finally {
      this.building.delete(name);
    }
  }

  /**
   * The schema of a top-level kind (apiVersion, kind, metadata and its own fields): the kind's
   * message without a definition name, as the OpenAPI documents publish a kind under its GVK's name.
   */
  kindSchema(name: MessageName): JsonSchema {
    const { definition: _definition, ...schema } = this.messageSchema(name);
    return schema;
  }

  private structSchema(message: MessageDescription): JsonSchema {
    const properties: Record<string, JsonSchema> = {};
    const requiredFields: string[] = [];
    for (const { json, field, owner } of jsonFieldsOf(message, this.messages)) {
      properties[json] = this.fieldSchema(field, fieldDescriptions[`${definitionNameOf(owner.name)}.${json}`]);
      if (isRequiredField(field)) requiredFields.push(json);
    }
    const definition = definitionNameOf(message.name);
    const description = typeDescriptions[definition];
    return {
      type: 'object', properties, additionalProperties: false,
      ...(description !== undefined ? { description } : {}),
      ...(requiredFields.length > 0 ? { requiredFields } : {}),
      definition,
      ...(message.structType !== undefined ? { 'x-kubernetes-map-type': message.structType } : {}),
    };
  }

  /** One field's value: a scalar, a message, or a list or map of them, with the field's extensions. */
  private fieldSchema(field: FieldDescription, description: string | undefined): JsonSchema {
    const element = this.elementSchema(field);
    const patch = {
      ...(field.patchMergeKey !== undefined ? { 'x-kubernetes-patch-merge-key': field.patchMergeKey } : {}),
      ...(field.patchStrategy !== undefined ? { 'x-kubernetes-patch-strategy': field.patchStrategy } : {}),
    };
    const described = description !== undefined ? { description } : {};
    if (field.repeated) {
      return {
        type: 'array', items: element, ...described,
        ...(field.listType !== undefined ? { 'x-kubernetes-list-type': field.listType } : {}),
        ...(field.listMapKeys !== undefined ? { 'x-kubernetes-list-map-keys': field.listMapKeys } : {}),
        ...patch,
      };
    }
    if (field.mapKey !== undefined) {
      return {
        type: 'object', additionalProperties: element, ...described,
        ...(field.mapType !== undefined ? { 'x-kubernetes-map-type': field.mapType } : {}),
        ...patch,
      };
    }
    if (Object.keys(patch).length > 0) {
      // A strategy on a struct field (DeploymentSpec.strategy: retainKeys) belongs to the field, not
      // to the shared definition: an unnamed copy carries it.
      const { definition: _definition, ...copy } = element;
      return { ...copy, ...described, ...patch };
    }
    // A named message is one shared definition: a field's own description cannot sit on it.
    if (element.definition !== undefined || description === undefined) return element;
    return { ...element, description };
  }

  /** The schema of one value of a field (an item of a list, a value of a map). */
  private elementSchema(field: FieldDescription): JsonSchema {
    if (isScalar(field.type)) {
      const scalar = scalarSchema(field.type);
      return field.enum !== undefined ? { ...scalar, enumValues: field.enum } : scalar;
    }
    const message = this.messageSchema(field.type);
    const messageStructType = this.messages.get(field.type)?.structType ?? 'granular';
    if (field.structType !== undefined && field.structType !== messageStructType) {
      // The field merges the struct otherwise than the type does (PersistentVolumeSpec.claimRef):
      // an unnamed copy carries the field's own map type.
      const { definition: _definition, ...copy } = message;
      return { ...copy, 'x-kubernetes-map-type': field.structType };
    }
    return message;
  }
}

/** The schema of a kind's message, from a builder of its own. */
export function schemaOfKind(message: MessageName, builder = new SchemaBuilder()): JsonSchema {
  return builder.kindSchema(message);
}
