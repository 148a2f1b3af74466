// Owns: the protobufjs types of the Kubernetes messages kstore speaks in the protobuf wire format,
// built on first use from the generated kind descriptions (api/registry/generated/), the JSON facts
// the codec reads per field and per message (JSON name, zero value kept, inline, JSON form), and
// the apiVersion/kind → message table of the kinds kstore takes and answers as protobuf.
//
// Only the messages reachable from those kinds (plus the runtime.Unknown envelope and the watch
// event) become protobufjs types. Field names in protobufjs are the JSON names (the protobuf name
// only where JSON has none: inline and envelope fields), so a decoded message's properties are
// already the JSON properties; numbers and types decide the wire format. Fields a newer
// Kubernetes added are not described, so protobuf decoding skips them as unknown fields.
import protobuf from 'protobufjs';
import type { Field, MapField, Type } from 'protobufjs';
import { apiPackages, messageDescriptions } from '../registry/generated/index.ts';
import type { ApiPackageDescription, FieldDescription, JsonForm, MessageDescription, MessageName } from '../registry/kind-description.ts';
import { apiVersionOf, servedKinds } from '../registry/kinds.ts';
import type { ResourceKind } from '../registry/kinds.ts';

const metaV1 = 'k8s.io.apimachinery.pkg.apis.meta.v1';
const unknownMessage: MessageName = 'k8s.io.apimachinery.pkg.runtime.Unknown';
const watchEventMessage: MessageName = `${metaV1}.WatchEvent`;

/** What the JSON mapping needs to know about one protobuf field. */
export interface FieldJsonFacts {
  /** The JSON property; absent for an inline field and a field JSON never carries. */
  readonly json?: string;
  /** Go writes the field's zero value to JSON: it is a pointer, or its json tag has no omitempty. */
  readonly keepZero: boolean;
  /** A Go embedded struct with `json:",inline"`: its message's fields sit in the enclosing object. */
  readonly inline: boolean;
}

/**
 * Kinds kstore takes or answers as protobuf besides its stored resources (api/registry/kinds.ts)
 * and their subresources' bodies: the create-only reviews (api/auth/rbac-reviews.ts,
 * api/auth/self-subject-review.ts, api/auth/token-review.ts) and the metadata-only views (api/partial-metadata.ts). A version the
 * descriptions lack reads its kinds from `describedBy` (kubectl before 1.28 sends
 * SelfSubjectReview as v1beta1, the same message as v1; meta.k8s.io/v1beta1 has only its own
 * PartialObjectMetadataList).
 */
const nonResourceKinds: readonly { readonly apiVersion: string; readonly kinds: readonly string[]; readonly describedBy?: string }[] = [
  { apiVersion: 'authorization.k8s.io/v1', kinds: ['LocalSubjectAccessReview', 'SelfSubjectAccessReview', 'SelfSubjectRulesReview', 'SubjectAccessReview'] },
  { apiVersion: 'authentication.k8s.io/v1', kinds: ['SelfSubjectReview', 'TokenReview'] },
  { apiVersion: 'authentication.k8s.io/v1beta1', kinds: ['SelfSubjectReview'], describedBy: 'authentication.k8s.io/v1' },
  { apiVersion: 'meta.k8s.io/v1', kinds: ['PartialObjectMetadata', 'PartialObjectMetadataList'] },
  { apiVersion: 'meta.k8s.io/v1beta1', kinds: ['PartialObjectMetadata', 'PartialObjectMetadataList'], describedBy: 'meta.k8s.io/v1' },
];

/** meta/v1 kinds registered into every group version (metav1.AddToGroupVersion): typed clients send DeleteOptions under the resource's own. */
const metaKindsOfEveryGroupVersion = ['Status', 'DeleteOptions'] as const;

function packageOf(apiVersion: string): ApiPackageDescription | undefined {
  return apiPackages.find((description) => description.groupVersion !== undefined && apiVersionOf(description.groupVersion) === apiVersion);
}

/** A kind's message: a kind of the package, its list, or (for bodies that are not kinds of their own) a message of that name. */
function describedMessage(description: ApiPackageDescription | undefined, kind: string, kindsOnly: boolean): MessageName | undefined {
  if (description === undefined) return undefined;
  const entry = description.kinds.find((candidate) => candidate.kind === kind);
  if (entry !== undefined) return entry.message;
  const name = `${description.protoPackage}.${kind}` as MessageName;
  const listed = description.kinds.some((candidate) => candidate.listKind === kind);
  if (listed || (!kindsOnly && messageDescriptions.has(name))) return name;
  return undefined;
}

/** "apiVersion/kind" → message name, for every kind kstore speaks protobuf for. */
function buildKindMessages(kinds: readonly ResourceKind[]): Map<string, MessageName> {
  const table = new Map<string, MessageName>();
  const add = (apiVersion: string, kind: string, message: MessageName | undefined): void => {
    if (message !== undefined) table.set(`${apiVersion}/${kind}`, message);
  };
  const groupVersions = new Set<string>(['meta.k8s.io/v1']);
  for (const resource of kinds) {
    const apiVersion = apiVersionOf(resource);
    const description = packageOf(apiVersion);
    const message = describedMessage(description, resource.kind, true);
    if (message === undefined) continue; // served as JSON only, as kube serves custom resources
    groupVersions.add(apiVersion);
    add(apiVersion, resource.kind, message);
    add(apiVersion, `${resource.kind}List`, describedMessage(description, `${resource.kind}List`, true));
    for (const subresource of resource.subresources ?? []) {
      if (subresource.responseKind === undefined) continue;
      const bodyVersion = apiVersionOf(subresource.responseKind);
      // Only bodies that are kinds of their package (Binding, Eviction); connect options are not objects.
      const body = describedMessage(packageOf(bodyVersion), subresource.responseKind.kind, true);
      if (body === undefined) continue;
      groupVersions.add(bodyVersion);
      add(bodyVersion, subresource.responseKind.kind, body);
    }
  }
  for (const { apiVersion, kinds: names, describedBy } of nonResourceKinds) {
    for (const kind of names) {
      const message = describedMessage(packageOf(apiVersion), kind, false) ?? describedMessage(packageOf(describedBy ?? apiVersion), kind, false);
      if (message === undefined) throw new Error(`no generated description of ${apiVersion} ${kind}`);
      add(apiVersion, kind, message);
    }
  }
  for (const apiVersion of groupVersions) {
    for (const kind of metaKindsOfEveryGroupVersion) add(apiVersion, kind, `${metaV1}.${kind}`);
  }
  return table;
}

function describedMessageOrThrow(name: MessageName): MessageDescription {
  const description = messageDescriptions.get(name);
  if (description === undefined) throw new Error(`no generated description of message ${name}`);
  return description;
}

/** The messages the given ones reach through their protobuf fields, themselves included. */
function reachableMessages(roots: Iterable<MessageName>): MessageDescription[] {
  const seen = new Map<MessageName, MessageDescription>();
  const pending = [...roots];
  for (let name = pending.pop(); name !== undefined; name = pending.pop()) {
    if (seen.has(name)) continue;
    const description = describedMessageOrThrow(name);
    seen.set(name, description);
    for (const field of description.fields) {
      if (field.number !== undefined && messageDescriptions.has(field.type as MessageName)) pending.push(field.type as MessageName);
    }
  }
  return [...seen.values()];
}

/** The protobufjs field name: the JSON name, or the protobuf name where JSON has none. */
function fieldName(field: FieldDescription, message: MessageName): string {
  // protobufjs reserves names starting with "$" (JSONSchemaProps' $schema and $ref): those go by
  // their protobuf name; the codec reads and writes JSON by the field's recorded JSON name.
  const name = field.json !== undefined && field.json.startsWith('$') ? field.protoName ?? field.json : field.json ?? field.protoName;
  if (name === undefined) throw new Error(`${message}: field ${String(field.number)} has neither a JSON nor a protobuf name`);
  return name;
}

function protobufField(field: FieldDescription, message: MessageName, number: number): Field | MapField {
  const name = fieldName(field, message);
  const type = field.type.includes('.') ? `.${field.type}` : field.type;
  if (field.mapKey !== undefined) return new protobuf.MapField(name, number, field.mapKey, type);
  return new protobuf.Field(name, number, type, field.repeated ? 'repeated' : 'optional');
}

interface BuiltMessages {
  readonly root: protobuf.Root;
  readonly fieldFacts: WeakMap<Field | MapField, FieldJsonFacts>;
  readonly jsonForms: WeakMap<Type, JsonForm>;
}

/** protobufjs types (proto2, like kube's generated.proto) for the given messages. */
function buildMessages(messages: readonly MessageDescription[]): BuiltMessages {
  const root = new protobuf.Root();
  const fieldFacts = new WeakMap<Field | MapField, FieldJsonFacts>();
  const jsonForms = new WeakMap<Type, JsonForm>();
  for (const message of messages) {
    const dot = message.name.lastIndexOf('.');
    const type = new protobuf.Type(message.name.slice(dot + 1));
    for (const field of message.fields) {
      if (field.number === undefined) continue; // JSON only (the TypeMeta of a kind)
      const built = protobufField(field, message.name, field.number);
      if (type.fields[built.name] !== undefined) throw new Error(`${message.name}: two fields named ${built.name}`);
      type.add(built);
      fieldFacts.set(built, {
        ...(field.json !== undefined ? { json: field.json } : {}),
        keepZero: field.pointer === true || field.omitEmpty !== true,
        inline: field.inline === true,
      });
    }
    if (message.jsonForm !== undefined) jsonForms.set(type, message.jsonForm);
    root.define(message.name.slice(0, dot)).add(type);
  }
  root.resolveAll();
  return { root, fieldFacts, jsonForms };
}

const kindMessages = buildKindMessages(servedKinds);

interface BuiltKindMessages extends BuiltMessages {
  readonly unknownType: Type;
  readonly watchEventType: Type;
  readonly kindTypes: ReadonlyMap<string, Type>;
}

let builtOnce: BuiltKindMessages | undefined;

/**
 * The protobufjs types, built when first needed: building them is 60–100 ms of CPU that a
 * process would otherwise spend at every start, before it can serve (a restart of a store with
 * 100,000 objects, every API replica), whether or not a client ever speaks protobuf to it.
 */
function built(): BuiltKindMessages {
  if (builtOnce !== undefined) return builtOnce;
  const messages = buildMessages(reachableMessages([...kindMessages.values(), unknownMessage, watchEventMessage]));
  builtOnce = {
    ...messages,
    unknownType: messages.root.lookupType(unknownMessage),
    watchEventType: messages.root.lookupType(watchEventMessage),
    kindTypes: new Map([...kindMessages].map(([key, name]) => [key, messages.root.lookupType(name)])),
  };
  return builtOnce;
}

/** The prefixed envelope of every protobuf object (runtime.Unknown). */
export function unknownType(): Type {
  return built().unknownType;
}

/** One event of a protobuf watch stream (meta/v1 WatchEvent). */
export function watchEventType(): Type {
  return built().watchEventType;
}

/** Whether kstore speaks protobuf for objects of this apiVersion and kind (without building the types). */
export function hasKindMessage(apiVersion: string, kind: string): boolean {
  return kindMessages.has(`${apiVersion}/${kind}`);
}

/** The message of objects of this apiVersion and kind, when kstore speaks protobuf for them. */
export function kindMessageType(apiVersion: string, kind: string): Type | undefined {
  return hasKindMessage(apiVersion, kind) ? built().kindTypes.get(`${apiVersion}/${kind}`) : undefined;
}

/** The "apiVersion/kind" pairs kstore speaks protobuf for, e.g. "v1/ConfigMap", "coordination.k8s.io/v1/Lease". */
export function protobufKindNames(): string[] {
  return [...kindMessages.keys()];
}

/** The JSON facts of a field of one of the built messages. */
export function fieldJsonFacts(field: Field): FieldJsonFacts {
  const facts = built().fieldFacts.get(field);
  if (facts === undefined) throw new Error(`no description of protobuf field ${field.fullName}`);
  return facts;
}

/** The JSON form of a message whose Go type writes JSON of its own (Time, Quantity, ...); undefined for an object of fields. */
export function jsonFormOf(type: Type): JsonForm | undefined {
  return built().jsonForms.get(type);
}

/** One of the built messages by full name (tests compare other descriptions of the same types with it). */
export function builtMessageType(name: MessageName): Type {
  return built().root.lookupType(name);
}
