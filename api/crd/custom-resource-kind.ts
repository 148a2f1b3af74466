// Owns: turning one established CustomResourceDefinition into the kinds it serves — one
// ResourceKind per served version, so every generic handler (verbs, watch, lists, selectors,
// Table, patches, server-side apply, discovery, OpenAPI) serves custom resources unchanged.
// What makes them custom lives here: the names the CRD accepted, the structural schema (pruning
// and defaulting on decode, type checks and x-kubernetes-validations rules as 422 causes),
// generation and status rules of kube's custom resource strategy, the status and scale
// subresources, printer columns and selectable fields from JSONPath, and the conversion between
// the served versions and the storage version (conversion None: apiVersion rewritten, and the
// served version's defaults applied on every read).
import type { JsonValue, KubeObject } from '../../actors/index.ts';
import { internalError, invalid, methodNotAllowed } from '../status.ts';
import { ConversionCache, conversionWebhookOf, convertThroughWebhook } from './conversion-webhook.ts';
import type { ConversionWebhook } from './conversion-webhook.ts';
import type { StatusCause } from '../status.ts';
import { nameColumn, standardVerbs } from '../registry/kind.ts';
import type { ResourceKind, ScaleDescription, StoredAs, Strategy, Subresource, TableColumn } from '../registry/kind.ts';
import { servedKinds } from '../registry/kinds.ts';
import type { JsonSchema } from '../registry/schemas.ts';
import { unknownFieldProblems } from '../registry/validation.ts';
import type { FieldChecks } from '../registry/validation.ts';
import { sameJson } from '../registry/json-fields.ts';
import { applyDefaults, decodeCustomResource, validateValue } from './structural/index.ts';
import type { JsonSchemaProps } from './structural/index.ts';
import { compileRules, validateWithRules } from './cel/index.ts';
import { findJsonPath, fieldNamesOf, parseJsonPath, printedValue } from './json-path.ts';
import type { PathStep } from './json-path.ts';

type Fields = Record<string, unknown>;

function isFields(value: unknown): value is Fields {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function fieldsOf(value: unknown): Fields {
  return isFields(value) ? value : {};
}

function listOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function textOf(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

function textsOf(value: unknown): string[] {
  return listOf(value).filter((item): item is string => typeof item === 'string');
}

/** The names a CRD serves under: status.acceptedNames once the naming controller accepted them. */
export interface CustomResourceNames {
  readonly plural: string;
  readonly singular: string;
  readonly kind: string;
  readonly listKind: string;
  readonly shortNames: readonly string[];
  readonly categories: readonly string[];
}

export function acceptedNamesOf(crd: KubeObject): CustomResourceNames | undefined {
  const accepted = fieldsOf(fieldsOf(crd['status'])['acceptedNames']);
  const plural = textOf(accepted['plural']);
  const kind = textOf(accepted['kind']);
  if (plural === '' || kind === '') return undefined;
  return {
    plural, kind, singular: textOf(accepted['singular']) || kind.toLowerCase(), listKind: textOf(accepted['listKind']) || `${kind}List`,
    shortNames: textsOf(accepted['shortNames']), categories: textsOf(accepted['categories']),
  };
}

/** Whether the CRD's Established condition is True (kube serves its resources only then). */
export function isEstablished(crd: KubeObject): boolean {
  return listOf(fieldsOf(crd['status'])['conditions']).some((condition) => isFields(condition) && condition['type'] === 'Established' && condition['status'] === 'True');
}

const objectMetaSchema: JsonSchema = servedKinds[0]?.schema.properties?.['metadata'] ?? { type: 'object' };

const scalarTypes = new Set(['string', 'integer', 'number', 'boolean']);

/** The structural schema as kstore's JsonSchema (OpenAPI, kubectl explain, patches and server-side apply read it). */
function toKindSchema(node: JsonSchemaProps): JsonSchema {
  const schema: JsonSchema = {};
  if (typeof node.description === 'string') schema.description = node.description;
  if (node['x-kubernetes-int-or-string'] === true) schema.type = ['integer', 'string'];
  else if (node.type === 'string' && node.nullable === true) schema.type = ['string', 'null'];
  else if (node.type === 'object' || node.type === 'array' || (node.type !== undefined && scalarTypes.has(node.type))) schema.type = node.type as JsonSchema['type'];
  if (typeof node.format === 'string' && node.format !== '') schema.format = node.format;
  if (isFields(node.properties)) {
    schema.properties = Object.fromEntries(Object.entries(node.properties).map(([name, child]) => [name, toKindSchema(child as JsonSchemaProps)]));
  }
  if (isFields(node.items)) schema.items = toKindSchema(node.items as JsonSchemaProps);
  if (isFields(node.additionalProperties)) schema.additionalProperties = toKindSchema(node.additionalProperties as JsonSchemaProps);
  if (Array.isArray(node.required) && node.required.length > 0) schema.requiredFields = textsOf(node.required);
  if (Array.isArray(node.enum) && node.enum.every((value) => typeof value === 'string')) schema.enumValues = node.enum as string[];
  const listType = node['x-kubernetes-list-type'];
  if (listType === 'atomic' || listType === 'set' || listType === 'map') schema['x-kubernetes-list-type'] = listType;
  if (Array.isArray(node['x-kubernetes-list-map-keys'])) schema['x-kubernetes-list-map-keys'] = textsOf(node['x-kubernetes-list-map-keys']);
  const mapType = node['x-kubernetes-map-type'];
  if (mapType === 'atomic' || mapType === 'granular') schema['x-kubernetes-map-type'] = mapType;
  if (node['x-kubernetes-preserve-unknown-fields'] === true) schema['x-kubernetes-preserve-unknown-fields'] = true;
  return schema;
}

function rootSchema(structural: JsonSchemaProps, definition: string): JsonSchema {
  const converted = toKindSchema(structural);
  return {
    ...converted, type: 'object', definition,
    properties: {
      apiVersion: { type: 'string', description: 'APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources' },
      kind: { type: 'string', description: 'Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds' },
      ...converted.properties,
      metadata: objectMetaSchema,
    },
  };
}

/** The column a CRD without additionalPrinterColumns gets (kube's CRD handler). */
const defaultAgeColumn: Fields = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' };

/** A column of additionalPrinterColumns: its JSONPath's first value, as kube's table convertor prints it. */
function printerColumn(column: Fields): TableColumn {
  const type = textOf(column['type']);
  let steps: PathStep[] = [];
  try {
    steps = parseJsonPath(textOf(column['jsonPath']));
  } catch {
    steps = [];
  }
  const cellType = type === 'integer' || type === 'number' || type === 'boolean' || type === 'date' ? type : 'string';
  return {
    name: textOf(column['name']), type: cellType, ...(textOf(column['format']) === '' ? {} : { format: textOf(column['format']) }),
    description: textOf(column['description']) || 'Custom resource definition column (in JSONPath format): ' + textOf(column['jsonPath']),
    priority: typeof column['priority'] === 'number' ? column['priority'] : 0,
    cell: (object, sinceCell) => {
      const found = findJsonPath(object, steps)[0];
      if (found === undefined || found === null) return null;
      if (cellType === 'date') return sinceCell(found);
      if (cellType === 'string') return printedValue(found);
      if (cellType === 'integer' || cellType === 'number') return typeof found === 'number' ? found : null;
      return typeof found === 'boolean' ? found : null;
    },
  };
}

function selectableFields(version: Fields): Record<string, (object: Record<string, unknown>) => string> {
  const selectors: Record<string, (object: Record<string, unknown>) => string> = {};
  for (const entry of listOf(version['selectableFields'])) {
    const jsonPath = textOf(fieldsOf(entry)['jsonPath']);
    let steps: PathStep[];
    try {
      steps = parseJsonPath(jsonPath);
    } catch {
      continue;
    }
    const names = fieldNamesOf(steps);
    if (names === undefined || names.length === 0) continue;
    selectors[names.join('.')] = (object) => {
      const found = findJsonPath(object, steps)[0];
      return found === undefined || found === null ? '' : typeof found === 'string' ? found : String(found);
    };
  }
  return selectors;
}

function pathNames(jsonPath: string): string[] {
  try {
    return fieldNamesOf(parseJsonPath(jsonPath)) ?? [];
  } catch {
    return [];
  }
}

function scaleOf(scale: Fields): ScaleDescription {
  const selectorPath = textOf(scale['labelSelectorPath']);
  const selectorSteps = selectorPath === '' ? undefined : parseJsonPath(selectorPath);
  return {
    specReplicasPath: pathNames(textOf(scale['specReplicasPath'])),
    statusReplicasPath: pathNames(textOf(scale['statusReplicasPath'])),
    selector: (object) => {
      if (selectorSteps === undefined) return '';
      const found = findJsonPath(object, selectorSteps)[0];
      return typeof found === 'string' ? found : '';
    },
  };
}

/** The object without metadata (and without status when status is its own subresource): what a generation counts. */
function generationContent(object: KubeObject, statusSubresource: boolean): Record<string, unknown> {
  const content: Record<string, unknown> = { ...object };
  delete content['metadata'];
  if (statusSubresource) delete content['status'];
  return content;
}

/**
 * kube's hasBlockingErr: with a NotSupported, Required, TooLong, TooMany or TypeInvalid error the
 * rules are not run, and a cause at the nil path (field "<nil>", as Go prints a nil *field.Path) says so.
 */
const blockingReasons = new Set(['FieldValueNotSupported', 'FieldValueRequired', 'FieldValueTooLong', 'FieldValueTooMany', 'FieldValueTypeInvalid']);
const rulesSkippedCause: StatusCause = {
  reason: 'FieldValueInvalid',
  field: '<nil>',
  message: 'Invalid value: "null": some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
};

interface VersionFacts {
  readonly group: string;
  readonly names: CustomResourceNames;
  readonly namespaced: boolean;
  readonly version: string;
  readonly storageVersion: string;
  readonly schema: JsonSchemaProps;
  readonly statusSubresource: boolean;
  readonly scale: ScaleDescription | undefined;
  /** The CRD is being deleted: its objects are read, listed and deleted, never created. */
  readonly terminating: boolean;
  /** The conversion webhook, when the CRD converts through one. */
  readonly webhook: ConversionWebhook | undefined;
  /** Every version objects were ever stored in is the storage version (status.storedVersions). */
  readonly allStoredInStorageVersion: boolean;
}

function strategyOf(facts: VersionFacts): Strategy {
  const rules = compileRules(facts.schema);
  const scaleCauses = (object: KubeObject): StatusCause[] => {
    if (facts.scale === undefined) return [];
    const causes: StatusCause[] = [];
    for (const path of [facts.scale.specReplicasPath, facts.scale.statusReplicasPath]) {
      if (path.length === 0) continue;
      let value: unknown = object;
      for (const name of path) value = fieldsOf(value)[name];
      if (value === undefined) continue;
      const field = path.join('.');
      if (typeof value !== 'number' || !Number.isInteger(value)) causes.push({ reason: 'FieldValueInvalid', message: `Invalid value: ${JSON.stringify(value)}: should be an integer`, field });
      else if (value < 0) causes.push({ reason: 'FieldValueInvalid', message: `Invalid value: ${value}: should be a non-negative integer`, field });
      else if (value > 2_147_483_647) causes.push({ reason: 'FieldValueInvalid', message: `Invalid value: ${value}: should be less than or equal to 2147483647`, field });
    }
    return causes;
  };
  // validate (create and update) checks the schema; validateCreate/validateUpdate then run the
  // rules unless that found a blocking error (remembered per object between the two calls).
  const blocked = new WeakSet<KubeObject>();
  const structuralCauses = (object: KubeObject): StatusCause[] => {
    const causes = [...validateValue(facts.schema, object), ...scaleCauses(object)];
    if (!causes.some((cause) => cause.reason !== undefined && blockingReasons.has(cause.reason))) return causes;
    blocked.add(object);
    return [...causes, rulesSkippedCause];
  };
  const ruleCauses = (object: KubeObject, old: KubeObject | undefined): StatusCause[] =>
    (blocked.has(object) ? [] : validateWithRules(rules, object, old, {}));
  return {
    allowCreateOnUpdate: false,
    prepareForCreate(object) {
      if (facts.terminating) throw methodNotAllowed('create not allowed while custom resource definition is terminating');
      applyDefaults(facts.schema, object);
      if (facts.statusSubresource) delete object['status'];
      object.metadata.generation = 1;
    },
    prepareForUpdate(object, old) {
      applyDefaults(facts.schema, object);
      if (facts.statusSubresource) {
        if (old['status'] === undefined) delete object['status'];
        else object['status'] = structuredClone(old['status']);
      }
      const generation = typeof old.metadata.generation === 'number' ? old.metadata.generation : 1;
      const changed = !sameJson(generationContent(object, facts.statusSubresource) as JsonValue, generationContent(old, facts.statusSubresource) as JsonValue);
      object.metadata.generation = changed ? generation + 1 : generation;
    },
    prepareForSubresourceUpdate(_subresource, object) {
      applyDefaults(facts.schema, object);
    },
    validate: structuralCauses,
    validateCreate: (object) => ruleCauses(object, undefined),
    validateUpdate: (object, old) => ruleCauses(object, old),
  };
}

function defaulted(object: KubeObject, schema: JsonSchemaProps): KubeObject {
  try {
    applyDefaults(schema, object);
  } catch {
    // A stored object the schema cannot default is served as stored.
  }
  return object;
}

/** Objects one ConversionReview carries at most. */
const conversionBatchMax = 500;

/**
 * The served version's view of the storage, its defaults applied on every read. Conversion None:
 * apiVersion rewritten both ways. Webhook: objects in another version go through the webhook,
 * converted ahead into a cache (StoredAs.prepare) that the synchronous reads use.
 */
function storedAsOf(facts: VersionFacts): StoredAs {
  const servedApiVersion = `${facts.group}/${facts.version}`;
  const storedApiVersion = `${facts.group}/${facts.storageVersion}`;
  const base = { group: facts.group, version: facts.storageVersion, resource: facts.names.plural, kind: facts.names.kind };
  const webhook = facts.webhook;
  if (webhook === undefined || facts.version === facts.storageVersion && facts.allStoredInStorageVersion) {
    return {
      ...base,
      toStored: (object) => ({ ...object, apiVersion: storedApiVersion }),
      fromStored: (object) => {
        const served = structuredClone(object);
        served.apiVersion = servedApiVersion;
        return defaulted(served, facts.schema);
      },
    };
  }
  const cache = new ConversionCache();
  const label = (apiVersion: string): string => `${apiVersion}, Kind=${facts.names.kind}`;
  return {
    ...base,
    toStored: (object) => {
      if (object.apiVersion === storedApiVersion) return object;
      throw internalError(`conversion webhook for ${label(object.apiVersion)} failed: the object was not converted before it was stored`);
    },
    toStoredAsync: async (object) => (await convertThroughWebhook(webhook, [object], storedApiVersion, label(object.apiVersion)))[0]!,
    fromStored: (object) => {
      if (object.apiVersion === servedApiVersion) return defaulted(structuredClone(object), facts.schema);
      const converted = cache.get(object, servedApiVersion);
      if (converted === undefined) throw internalError(`conversion webhook for ${label(object.apiVersion)} failed: the object was not converted before it was read`);
      return defaulted(structuredClone(converted), facts.schema);
    },
    prepare: async (objects) => {
      const missing = objects.filter((object) => object.apiVersion !== servedApiVersion && cache.get(object, servedApiVersion) === undefined);
      for (let start = 0; start < missing.length; start += conversionBatchMax) {
        const batch = missing.slice(start, start + conversionBatchMax);
        const converted = await convertThroughWebhook(webhook, batch, servedApiVersion, label(batch[0]!.apiVersion));
        batch.forEach((object, index) => cache.set(object, servedApiVersion, converted[index]!));
      }
    },
  };
}

function decoderOf(facts: VersionFacts): (object: KubeObject, checks: FieldChecks) => string[] {
  return (object, checks) => {
    const decoded = decodeCustomResource(facts.schema, object, { isResourceRoot: true });
    if (decoded.decodeError !== undefined) throw invalid(facts.group, facts.names.kind, object.metadata.name ?? '', [decoded.decodeError]);
    // Defaults are the strategy's (prepareFor*): a server-side apply configuration is decoded
    // here too, and must stay as sent (its manager owns only what it sent).
    return unknownFieldProblems({ kind: facts.names.kind, version: facts.version }, object, decoded.unknownFields, checks);
  };
}

/**
 * The kinds a CRD serves: one per served version, under its accepted names. Empty for a CRD that
 * is not established, has no accepted names or no storage version. `since` renders a date column.
 */
export function customResourceKinds(crd: KubeObject): ResourceKind[] {
  const spec = fieldsOf(crd['spec']);
  const names = acceptedNamesOf(crd);
  const group = textOf(spec['group']);
  const versions = listOf(spec['versions']).filter(isFields);
  const storageVersion = textOf(versions.find((version) => version['storage'] === true)?.['name']);
  if (names === undefined || group === '' || storageVersion === '' || !isEstablished(crd)) return [];
  const namespaced = spec['scope'] !== 'Cluster';
  const kinds: ResourceKind[] = [];
  // A conversion webhook kstore cannot reach (a service reference: kstore runs no service proxy)
  // leaves the CRD serving its storage version only, rather than converting wrongly.
  const webhookConversion = fieldsOf(spec['conversion'])['strategy'] === 'Webhook';
  const webhook = conversionWebhookOf(crd);
  const storedVersions = textsOf(fieldsOf(crd['status'])['storedVersions']);
  const allStoredInStorageVersion = storedVersions.every((version) => version === storageVersion);
  for (const version of versions) {
    if (version['served'] !== true) continue;
    if (webhookConversion && webhook === undefined && textOf(version['name']) !== storageVersion) continue;
    const versionName = textOf(version['name']);
    const schema = fieldsOf(fieldsOf(version['schema'])['openAPIV3Schema']) as JsonSchemaProps;
    const subresources = fieldsOf(version['subresources']);
    const statusSubresource = isFields(subresources['status']);
    const scale = isFields(subresources['scale']) ? scaleOf(subresources['scale']) : undefined;
    const facts: VersionFacts = { group, names, namespaced, version: versionName, storageVersion, schema, statusSubresource, scale, terminating: crd.metadata.deletionTimestamp !== undefined, webhook, allStoredInStorageVersion };
    const served: Subresource[] = [
      ...(statusSubresource ? [{ name: 'status', verbs: ['get', 'patch', 'update'] } as const] : []),
      ...(scale !== undefined ? [{ name: 'scale', verbs: ['get', 'patch', 'update'], responseKind: { group: 'autoscaling', version: 'v1', kind: 'Scale' } } as const] : []),
    ];
    const printerColumns = listOf(version['additionalPrinterColumns']).filter(isFields);
    const columns: TableColumn[] = [nameColumn, ...(printerColumns.length > 0 ? printerColumns : [defaultAgeColumn]).map(printerColumn)];
    const definition = `${group.split('.').reverse().join('.')}.${versionName}.${names.kind}`;
    kinds.push({
      group, version: versionName, resource: names.plural, singular: names.singular, kind: names.kind, namespaced,
      shortNames: names.shortNames, categories: names.categories, verbs: standardVerbs,
      ...(served.length > 0 ? { subresources: served } : {}),
      nameRule: 'dns1123Subdomain', columns, tableLayout: 'columnsOnly',
      fieldSelectors: selectableFields(version),
      schema: rootSchema(schema, definition),
      storage: storedAsOf(facts),
      ...(scale === undefined ? {} : { scale }),
      ...(version['deprecated'] === true ? { deprecationWarning: typeof version['deprecationWarning'] === 'string' ? version['deprecationWarning'] : `${group}/${versionName} ${names.kind} is deprecated` } : {}),
      strategy: strategyOf(facts),
      decode: decoderOf(facts),
      strategicMerge: false,
      definedBy: { name: textOf(crd.metadata.name), uid: textOf(crd.metadata.uid) },
    });
  }
  return kinds;
}
