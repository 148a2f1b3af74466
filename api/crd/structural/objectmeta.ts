// Owns: embedded resources (x-kubernetes-embedded-resource) as apiextensions' schema/objectmeta
// package treats them — their `metadata` decoded as a metav1.ObjectMeta (Go's JSON decode:
// "json: cannot unmarshal … into Go struct field ObjectMeta.labels of type map[string]string"),
// its unknown fields dropped and reported (`spec.template.metadata.foo`), its zero values
// dropped as Go re-encodes it; and the rules checked on create and update: apiVersion and kind
// required strings (kind a DNS-1035 label in any case), apiVersion a group/version, metadata a
// valid ObjectMeta (names as path segments, labels, annotations, owner references, finalizers,
// managed fields) in apimachinery 1.33's words.
import type { StatusCause } from '../../status.ts';
import {
  childPath, GoText, goJson, goQuote, goStrings, goStringCompare, indexPath, invalidCause, isGoInt, requiredCause, tooLongCause,
} from './field-errors.ts';
import { isFields } from './node.ts';
import type { Fields, Node } from './node.ts';
import { GoTimeParseError, canonicalGoTimestamp } from '../../go-time.ts';

// ---- apimachinery's name rules -------------------------------------------------------------

const qualifiedNamePattern = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const labelValuePattern = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const dns1123LabelPattern = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const dns1123SubdomainPattern = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const dns1035LabelPattern = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

const qualifiedNameMessage = "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const labelValueMessage = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const dns1123LabelMessage = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const dns1123SubdomainMessage = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const dns1035LabelMessage = "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";

const utf8 = new TextEncoder();

function byteLength(value: string): number {
  return utf8.encode(value).length;
}

function dns1123SubdomainProblems(value: string): string[] {
  const problems = byteLength(value) > 253 ? ['must be no more than 253 characters'] : [];
  return dns1123SubdomainPattern.test(value) ? problems : [...problems, dns1123SubdomainMessage];
}

/** IsDNS1123Label. */
export function dns1123LabelProblems(value: string): string[] {
  const problems = byteLength(value) > 63 ? ['must be no more than 63 characters'] : [];
  if (dns1123LabelPattern.test(value)) return problems;
  return [...problems, dns1123SubdomainPattern.test(value) ? 'must not contain dots' : dns1123LabelMessage];
}

/** IsDNS1035Label. */
export function dns1035LabelProblems(value: string): string[] {
  const problems = byteLength(value) > 63 ? ['must be no more than 63 characters'] : [];
  return dns1035LabelPattern.test(value) ? problems : [...problems, dns1035LabelMessage];
}

/** IsQualifiedName. */
export function qualifiedNameProblems(value: string): string[] {
  const parts = value.split('/');
  if (parts.length > 2) return [`a qualified name ${qualifiedNameMessage} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`];
  const name = parts.at(-1)!;
  const problems: string[] = [];
  if (parts.length === 2) {
    const prefix = parts[0]!;
    if (prefix === '') problems.push('prefix part must be non-empty');
    else problems.push(...dns1123SubdomainProblems(prefix).map((problem) => `prefix part ${problem}`));
  }
  if (name === '') problems.push('name part must be non-empty');
  else if (byteLength(name) > 63) problems.push('name part must be no more than 63 characters');
  if (!qualifiedNamePattern.test(name)) problems.push(`name part ${qualifiedNameMessage}`);
  return problems;
}

/** IsValidLabelValue. */
export function labelValueProblems(value: string): string[] {
  const problems = byteLength(value) > 63 ? ['must be no more than 63 characters'] : [];
  return labelValuePattern.test(value) ? problems : [...problems, labelValueMessage];
}

/** path.ValidatePathSegmentName (prefix: only the contained characters are checked). */
function pathSegmentProblems(name: string, prefix: boolean): string[] {
  if (!prefix && (name === '.' || name === '..')) return [`may not be '${name}'`];
  return ['/', '%'].filter((character) => name.includes(character)).map((character) => `may not contain '${character}'`);
}

/** schema.ParseGroupVersion's error, if any. */
function groupVersionProblem(apiVersion: string): string | undefined {
  if (apiVersion === '' || apiVersion === '/') return undefined;
  return apiVersion.split('/').length > 2 ? `unexpected GroupVersion string: ${apiVersion}` : undefined;
}

// ---- Go's JSON decode of metav1.ObjectMeta ---------------------------------------------------

type GoField =
  | { readonly kind: 'string' | 'int64' | 'bool' | 'time' | 'raw' }
  | { readonly kind: 'stringMap' | 'stringList' }
  | { readonly kind: 'structList'; readonly struct: GoStruct };

interface GoStruct {
  readonly name: string;
  readonly fields: ReadonlyMap<string, GoField & { readonly omitEmpty: boolean }>;
}

function struct(name: string, fields: Record<string, [GoField['kind'], boolean, GoStruct?]>): GoStruct {
  return {
    name,
    fields: new Map(Object.entries(fields).map(([field, [kind, omitEmpty, inner]]) => [
      field, (kind === 'structList' ? { kind, struct: inner!, omitEmpty } : { kind, omitEmpty }) as GoField & { omitEmpty: boolean },
    ])),
  };
}

const ownerReference = struct('OwnerReference', {
  apiVersion: ['string', false], kind: ['string', false], name: ['string', false], uid: ['string', false],
  controller: ['bool', true], blockOwnerDeletion: ['bool', true],
});

const managedFieldsEntry = struct('ManagedFieldsEntry', {
  manager: ['string', true], operation: ['string', true], apiVersion: ['string', true], time: ['time', true],
  fieldsType: ['string', true], fieldsV1: ['raw', true], subresource: ['string', true],
});

const objectMeta = struct('ObjectMeta', {
  name: ['string', true], generateName: ['string', true], namespace: ['string', true], selfLink: ['string', true],
  uid: ['string', true], resourceVersion: ['string', true], generation: ['int64', true], creationTimestamp: ['time', false],
  deletionTimestamp: ['time', true], deletionGracePeriodSeconds: ['int64', true], labels: ['stringMap', true],
  annotations: ['stringMap', true], ownerReferences: ['structList', true, ownerReference], finalizers: ['stringList', true],
  managedFields: ['structList', true, managedFieldsEntry],
});

function jsonKindName(value: unknown): string {
  if (typeof value === 'string') return 'string';
  if (typeof value === 'boolean') return 'bool';
  if (typeof value === 'number') return 'number';
  return Array.isArray(value) ? 'array' : 'object';
}

function goTypeName(field: GoField): string {
  switch (field.kind) {
    case 'stringMap': return 'map[string]string';
    case 'stringList': return '[]string';
    case 'structList': return `[]v1.${field.struct.name}`;
    case 'time': return 'string';
    default: return field.kind;
  }
}


interface Decoded {
  /** The first decode error, as Go's json.Unmarshal returns it. */
  error?: string;
  /** The strict decoder's unknown fields (`foo`, `ownerReferences[0].bar`). */
  readonly unknown: string[];
}

/** Go's UnmarshalTypeError text with its struct context. */
function typeError(value: unknown, struct: string, fields: readonly string[], type: string): string {
  const valueText = typeof value === 'number' ? (isGoInt(value) ? 'number' : `number ${goJson(value)}`) : jsonKindName(value);
  return `json: cannot unmarshal ${valueText} into Go struct field ${struct}.${fields.join('.')} of type ${type}`;
}

/**
 * Decodes `value` into `target` as Go's JSON decoder fills the struct (keys in sorted order, as
 * the metadata map is marshalled first): records the first type error and unknown fields, and
 * returns the re-encoded value (unknown fields and omitempty zero values dropped).
 */
function decodeStruct(value: Fields, target: GoStruct, stack: readonly string[], unknownPrefix: string, decoded: Decoded): Fields {
  const out: Fields = {};
  const fail = (message: string): void => {
    decoded.error ??= message;
  };
  for (const key of Object.keys(value).sort(goStringCompare)) {
    const field = target.fields.get(key);
    const item = value[key];
    if (field === undefined) {
      decoded.unknown.push(`${unknownPrefix}${key}`);
      continue;
    }
    const fields = [...stack, key];
    if (item === null) continue;
    switch (field.kind) {
      case 'string':
        if (typeof item !== 'string') fail(typeError(item, target.name, fields, 'string'));
        else if (item !== '' || !field.omitEmpty) out[key] = item;
        break;
      case 'bool':
        if (typeof item !== 'boolean') fail(typeError(item, target.name, fields, 'bool'));
        else out[key] = item;
        break;
      case 'int64':
        if (typeof item !== 'number' || !isGoInt(item)) fail(typeError(item, target.name, fields, 'int64'));
        else if (item !== 0 || !field.omitEmpty || key === 'deletionGracePeriodSeconds') out[key] = item;
        break;
      case 'time':
        if (typeof item !== 'string') fail(`json: cannot unmarshal ${jsonKindName(item)} into Go value of type string`);
        else {
          // metav1.Time's decode (Go's time.Parse, RFC3339), re-encoded as Go writes it (UTC, seconds).
          try {
            out[key] = canonicalGoTimestamp(item, 'Time');
          } catch (error) {
            if (!(error instanceof GoTimeParseError)) throw error;
            fail(error.message);
          }
        }
        break;
      case 'raw':
        out[key] = item;
        break;
      case 'stringMap':
        if (!isFields(item)) fail(typeError(item, target.name, fields, 'map[string]string'));
        else {
          const map: Fields = {};
          for (const mapKey of Object.keys(item).sort(goStringCompare)) {
            const entry = item[mapKey];
            if (entry !== null && typeof entry !== 'string') fail(typeError(entry, target.name, fields, 'string'));
            else map[mapKey] = entry ?? '';
          }
          if (Object.keys(map).length > 0 || !field.omitEmpty) out[key] = map;
        }
        break;
      case 'stringList':
        if (!Array.isArray(item)) fail(typeError(item, target.name, fields, '[]string'));
        else {
          const list: string[] = [];
          for (const entry of item) {
            if (entry !== null && typeof entry !== 'string') fail(typeError(entry, target.name, fields, 'string'));
            else list.push(entry ?? '');
          }
          if (list.length > 0) out[key] = list;
        }
        break;
      case 'structList':
        if (!Array.isArray(item)) fail(typeError(item, target.name, fields, goTypeName(field)));
        else {
          const list: Fields[] = [];
          item.forEach((entry, index) => {
            if (entry === null) list.push(decodeStruct({}, field.struct, fields, `${unknownPrefix}${key}[${index}].`, decoded));
            else if (!isFields(entry)) fail(typeError(entry, target.name, fields, `v1.${field.struct.name}`));
            else list.push(decodeStruct(entry, field.struct, fields, `${unknownPrefix}${key}[${index}].`, decoded));
          });
          if (list.length > 0) out[key] = list;
        }
        break;
    }
  }
  // Fields without omitempty are written even when absent (Go encodes their zero value).
  for (const [key, field] of target.fields) {
    if (!field.omitEmpty && !(key in out) && field.kind === 'string') out[key] = '';
  }
  return out;
}

export interface DecodedObjectMeta {
  /** The metadata as kube stores it after decoding (unknown fields and zero values dropped). */
  readonly meta: Fields | undefined;
  readonly error: string | undefined;
  readonly unknown: readonly string[];
}

/** metav1.ObjectMeta decoded from an embedded resource's `metadata` value. */
export function decodeObjectMeta(value: unknown): DecodedObjectMeta {
  if (!isFields(value)) {
    if (value === null) return { meta: {}, error: undefined, unknown: [] };
    return { meta: undefined, error: `json: cannot unmarshal ${jsonKindName(value)} into Go value of type v1.ObjectMeta`, unknown: [] };
  }
  const decoded: Decoded = { unknown: [] };
  const meta = decodeStruct(value, objectMeta, [], '', decoded);
  if (meta['creationTimestamp'] === undefined) delete meta['creationTimestamp'];
  return decoded.error === undefined ? { meta, error: undefined, unknown: decoded.unknown } : { meta: undefined, error: decoded.error, unknown: decoded.unknown };
}

// ---- ValidateObjectMeta ----------------------------------------------------------------------

function textOf(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

const annotationsBytesMax = 256 * 1024;
const bannedOwner = '/v1, Kind=Event';

function goOwnerReference(reference: Fields): string {
  const pointer = (name: string): string => (typeof reference[name] === 'boolean' ? '(*bool)(0xc000000000)' : '(*bool)(nil)');
  return `v1.OwnerReference{APIVersion:${goQuote(textOf(reference['apiVersion']))}, Kind:${goQuote(textOf(reference['kind']))}, Name:${goQuote(textOf(reference['name']))}, UID:${goQuote(textOf(reference['uid']))}, Controller:${pointer('controller')}, BlockOwnerDeletion:${pointer('blockOwnerDeletion')}}`;
}

/** schema.FromAPIVersionAndKind's group and version (both empty when apiVersion does not parse). */
function groupVersion(apiVersion: string): [string, string] {
  const parts = apiVersion.split('/');
  if (apiVersion === '/' || parts.length > 2) return ['', ''];
  return parts.length === 1 ? ['', apiVersion] : [parts[0]!, parts[1]!];
}

/** ValidateObjectMeta (with path-segment names) of decoded metadata at `path`. */
function objectMetaCauses(meta: Fields, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  const generateName = textOf(meta['generateName']);
  if (generateName !== '') {
    for (const problem of pathSegmentProblems(generateName, true)) causes.push(invalidCause(childPath(path, 'generateName'), generateName, problem));
  }
  const name = textOf(meta['name']) || 'fakename';
  for (const problem of pathSegmentProblems(name, false)) causes.push(invalidCause(childPath(path, 'name'), name, problem));
  const namespace = textOf(meta['namespace']);
  if (namespace !== '') {
    for (const problem of dns1123LabelProblems(namespace)) causes.push(invalidCause(childPath(path, 'namespace'), namespace, problem));
  }
  const generation = typeof meta['generation'] === 'number' ? meta['generation'] : 0;
  if (generation < 0) causes.push(invalidCause(childPath(path, 'generation'), generation, 'must be greater than or equal to 0'));
  const labels = isFields(meta['labels']) ? meta['labels'] : {};
  for (const [key, value] of Object.entries(labels)) {
    for (const problem of qualifiedNameProblems(key)) causes.push(invalidCause(childPath(path, 'labels'), key, problem));
    for (const problem of labelValueProblems(textOf(value))) causes.push(invalidCause(childPath(path, 'labels'), textOf(value), problem));
  }
  const annotations = isFields(meta['annotations']) ? meta['annotations'] : {};
  let annotationBytes = 0;
  for (const [key, value] of Object.entries(annotations)) {
    for (const problem of qualifiedNameProblems(key.toLowerCase())) causes.push(invalidCause(childPath(path, 'annotations'), key, problem));
    annotationBytes += byteLength(key) + byteLength(textOf(value));
  }
  if (annotationBytes > annotationsBytesMax) causes.push(tooLongCause(childPath(path, 'annotations'), annotationsBytesMax));
  const references = Array.isArray(meta['ownerReferences']) ? meta['ownerReferences'].filter(isFields) : [];
  const referencesPath = childPath(path, 'ownerReferences');
  let firstController = '';
  for (const reference of references) {
    const apiVersion = textOf(reference['apiVersion']);
    const kind = textOf(reference['kind']);
    const [group, version] = groupVersion(apiVersion);
    const gvk = `${group}/${version}, Kind=${kind}`;
    if (version === '') causes.push(invalidCause(childPath(referencesPath, 'apiVersion'), apiVersion, 'version must not be empty'));
    if (kind === '') causes.push(invalidCause(childPath(referencesPath, 'kind'), kind, 'kind must not be empty'));
    if (textOf(reference['name']) === '') causes.push(invalidCause(childPath(referencesPath, 'name'), '', 'name must not be empty'));
    if (textOf(reference['uid']) === '') causes.push(invalidCause(childPath(referencesPath, 'uid'), '', 'uid must not be empty'));
    if (gvk === bannedOwner) causes.push(invalidCause(referencesPath, new GoText(goOwnerReference(reference)), `${gvk} is disallowed from being an owner`));
    if (reference['controller'] === true) {
      const controller = `${kind}/${textOf(reference['name'])}`;
      if (firstController === '') firstController = controller;
      else {
        const all = new GoText(`[]v1.OwnerReference{${references.map(goOwnerReference).join(', ')}}`);
        causes.push(invalidCause(referencesPath, all, `Only one reference can have Controller set to true. Found "true" in references for ${firstController} and ${controller}`));
      }
    }
  }
  const finalizers = Array.isArray(meta['finalizers']) ? meta['finalizers'].map(textOf) : [];
  for (const finalizer of finalizers) {
    for (const problem of qualifiedNameProblems(finalizer)) causes.push(invalidCause(childPath(path, 'finalizers'), finalizer, problem));
  }
  if (finalizers.includes('orphan') && finalizers.includes('foregroundDeletion')) {
    causes.push(invalidCause(childPath(path, 'finalizers'), new GoText(goStrings(finalizers)), 'finalizer orphan and foregroundDeletion cannot be both set'));
  }
  const managed = Array.isArray(meta['managedFields']) ? meta['managedFields'].filter(isFields) : [];
  managed.forEach((entry, index) => {
    const entryPath = indexPath(childPath(path, 'managedFields'), index);
    const operation = textOf(entry['operation']);
    if (operation !== 'Apply' && operation !== 'Update') causes.push(invalidCause(childPath(entryPath, 'operation'), operation, 'must be `Apply` or `Update`'));
    const fieldsType = textOf(entry['fieldsType']);
    if (fieldsType !== '' && fieldsType !== 'FieldsV1') causes.push(invalidCause(childPath(entryPath, 'fieldsType'), fieldsType, 'must be `FieldsV1`'));
    const manager = textOf(entry['manager']);
    if (byteLength(manager) > 128) causes.push(tooLongCause(childPath(entryPath, 'manager'), 128));
    let position = 0;
    for (const character of manager) {
      if (/[^\p{L}\p{M}\p{N}\p{P}\p{S} ]/u.test(character)) {
        const code = character.codePointAt(0)!;
        causes.push(invalidCause(childPath(entryPath, 'manager'), manager, `invalid character U+${code.toString(16).toUpperCase().padStart(4, '0')} (at position ${position})`));
      }
      position += byteLength(character);
    }
    if (byteLength(textOf(entry['subresource'])) > 256) causes.push(tooLongCause(childPath(entryPath, 'subresource'), 256));
  });
  return causes;
}

/** validateEmbeddedResource: apiVersion, kind and metadata of one embedded object at `path`. */
function embeddedResourceCauses(value: Fields, path: string): StatusCause[] {
  const causes: StatusCause[] = [];
  if (!('apiVersion' in value)) causes.push(requiredCause(childPath(path, 'apiVersion'), 'must not be empty'));
  if (!('kind' in value)) causes.push(requiredCause(childPath(path, 'kind'), 'must not be empty'));
  if ('apiVersion' in value) {
    const apiVersion = value['apiVersion'];
    const field = childPath(path, 'apiVersion');
    if (typeof apiVersion !== 'string') causes.push(invalidCause(field, apiVersion, 'must be a string'));
    else if (apiVersion === '') causes.push(invalidCause(field, apiVersion, 'must not be empty'));
    else {
      const problem = groupVersionProblem(apiVersion);
      if (problem !== undefined) causes.push(invalidCause(field, apiVersion, problem));
    }
  }
  if ('kind' in value) {
    const kind = value['kind'];
    const field = childPath(path, 'kind');
    if (typeof kind !== 'string') causes.push(invalidCause(field, kind, 'must be a string'));
    else if (kind === '') causes.push(invalidCause(field, kind, 'must not be empty'));
    else {
      const problems = dns1035LabelProblems(kind.toLowerCase());
      if (problems.length > 0) causes.push(invalidCause(field, kind, `may have mixed case, but should otherwise match: ${problems.join(',')}`));
    }
  }
  if ('metadata' in value) {
    const decoded = decodeObjectMeta(value['metadata']);
    if (decoded.meta === undefined) causes.push(invalidCause(childPath(path, 'metadata'), value['metadata'], decoded.error ?? ''));
    else causes.push(...objectMetaCauses(decoded.meta, childPath(path, 'metadata')));
  }
  return causes;
}

/**
 * schemaobjectmeta.Validate: the embedded resources found in `value` by following the schema
 * (properties, additionalProperties as `[key]`, items as `[i]`), each checked; `path` is the
 * field path of `value`. The value's own node is not an embedded resource unless marked.
 */
export function embeddedResourcesCauses(node: Node | undefined, value: unknown, path: string, isResourceRoot = false): StatusCause[] {
  if (node === undefined) return [];
  const causes: StatusCause[] = [];
  if (isFields(value)) {
    if (node.embeddedResource || isResourceRoot) causes.push(...embeddedResourceCauses(value, path));
    const properties = node.properties;
    const additional = node.additionalProperties;
    for (const key of Object.keys(value)) {
      const property = properties?.get(key);
      if (property !== undefined) causes.push(...embeddedResourcesCauses(property, value[key], childPath(path, key)));
      else if (additional !== undefined) causes.push(...embeddedResourcesCauses(additional.schema, value[key], indexPath(path, key)));
    }
  } else if (Array.isArray(value)) {
    value.forEach((item, index) => causes.push(...embeddedResourcesCauses(node.items, item, indexPath(path, index))));
  }
  return causes;
}

export interface EmbeddedCoercion {
  /** Unknown metadata fields dropped, as `spec.template.metadata.foo`, sorted. */
  readonly unknown: readonly string[];
  /** The decode error that fails the request (a non-string apiVersion or kind, metadata that is no ObjectMeta). */
  readonly error: StatusCause | undefined;
}

/**
 * schemaobjectmeta.Coerce of a decoded custom resource (not its root): in every embedded
 * resource, apiVersion and kind must be strings and metadata decodes as an ObjectMeta, which
 * replaces it (unknown fields and zero values dropped). Stops at the first error, as kube does.
 */
export function coerceEmbeddedResources(node: Node, value: unknown, path = '', isResourceRoot = false): EmbeddedCoercion {
  const unknown: string[] = [];
  const error = coerce(node, value, path, unknown, isResourceRoot);
  return { unknown: unknown.sort(goStringCompare), error };
}

function coerce(node: Node | undefined, value: unknown, path: string, unknown: string[], embeddedHere: boolean): StatusCause | undefined {
  if (node === undefined) return undefined;
  if (isFields(value)) {
    const embedded = embeddedHere || node.embeddedResource;
    const properties = node.properties;
    const additional = node.additionalProperties;
    for (const key of Object.keys(value)) {
      const item = value[key];
      if (embedded && (key === 'apiVersion' || key === 'kind') && typeof item !== 'string') {
        return invalidCause(childPath(path, key), item, 'must be a string');
      }
      if (embedded && key === 'metadata') {
        const decoded = decodeObjectMeta(item);
        unknown.push(...decoded.unknown.map((field) => `${childPath(path, 'metadata')}.${field}`));
        if (decoded.meta === undefined) return invalidCause(childPath(path, 'metadata'), item, decoded.error ?? '');
        value[key] = decoded.meta;
      }
      const property = properties?.get(key);
      const problem = property !== undefined
        ? coerce(property, value[key], childPath(path, key), unknown, false)
        : additional !== undefined ? coerce(additional.schema, value[key], indexPath(path, key), unknown, false) : undefined;
      if (problem !== undefined) return problem;
    }
  } else if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const problem = coerce(node.items, value[index], indexPath(path, index), unknown, false);
      if (problem !== undefined) return problem;
    }
  }
  return undefined;
}

