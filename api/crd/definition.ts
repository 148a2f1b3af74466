// Owns: kube-apiserver 1.33's create and update strategy for apiextensions.k8s.io/v1
// CustomResourceDefinitions, as pure functions of the objects: v1's defaults, the status reset on
// create (storedVersions = the storage version) and kept on update, the generation bump on a spec
// change, the status subresource's spec reset, and ValidateCustomResourceDefinition /
// ValidateCustomResourceDefinitionUpdate / ValidateUpdateCustomResourceDefinitionStatus in kube's
// messages and field paths — run, as kube runs them, on the internal view (definition-internal.ts:
// identical per-version schemas, subresources, columns and selectable fields are validated at
// spec.validation, spec.subresources, …). The contents of each openAPIV3Schema (structural rules,
// defaults, CEL) are not checked here: the caller's `schemaCauses` is called for each one at its
// field path. The controllers' status (names, Established, Terminating) is in
// definition-conditions.ts, re-exported here.
import type { JsonValue, KubeObject } from '../../actors/index.ts';
import type { Strategy } from '../registry/kind.ts';
import { dns1035LabelProblems } from '../registry/strategy-admissionregistration.ts';
import { immutable, required } from '../registry/strategy-quota.ts';
import type { StatusCause } from '../status.ts';
import { goVersions, invalidRendered, invalidText, notSupportedText } from './definition-go.ts';
import type { InternalVersion } from './definition-go.ts';
import {
  anyStatusEnabled, crdMessages, fieldsOf, internalSpec, isFields, listOf, objectField, schemaHas, schemasOf, semanticEqual,
  subresourcesForVersion, textOf,
} from './definition-internal.ts';
import type { Fields, InternalSpec } from './definition-internal.ts';
import {
  apiApprovalCauses, columnCauses, conversionCauses, deprecationWarningProblems, groupProblems, hasAcceptedReviewVersionOrEmpty,
  namesCauses, selectableFieldsCauses, storedVersionsCauses, subresourcesCauses,
} from './definition-rules.ts';
import { hasInvalidCaBundle } from './definition-webhook.ts';

export {
  cleanupFinalizer, establishedCondition, finalizerPlan, markForDeletion, namingStatus, setCondition, terminatingCondition,
} from './definition-conditions.ts';
export type { ConditionStatus, CrdCondition, CrdNames, NamingStatus, TerminatingReason } from './definition-conditions.ts';

/** What a schema check is told of the openAPIV3Schema it is given. */
export interface SchemaContext {
  /** The version whose schema it is; undefined for the spec's (every version has the same). */
  readonly version: string | undefined;
  /** The status subresource is on for that version (for the spec's: for any version). */
  readonly statusEnabled: boolean;
  readonly preserveUnknownFields: boolean;
  /** The stored CRD on an update (kube relaxes some schema rules the old object already broke). */
  readonly old: KubeObject | undefined;
}

/**
 * Checks the contents of one openAPIV3Schema (kube's validateCustomResourceDefinitionValidation
 * inside CustomResourceValidation: root restrictions with the status subresource, structural
 * rules, defaults, CEL rules). `fieldPath` is the schema's own (`spec.validation.openAPIV3Schema`
 * or `spec.versions[1].schema.openAPIV3Schema`).
 */
export type SchemaCauses = (schema: unknown, fieldPath: string, context: SchemaContext) => StatusCause[];

function specOf(crd: KubeObject): Fields {
  return objectField(crd, 'spec');
}

// ---- defaults ----

/**
 * apiextensions v1's defaults, in place: names.singular = the kind in lower case and
 * names.listKind = kind + "List" when unset, conversion {strategy: None} when unset, a conversion
 * webhook service's port 443, and status.storedVersions = the storage version when empty. The
 * versions' served and storage flags are required booleans in v1, never defaulted.
 */
export function defaultCustomResourceDefinition(crd: KubeObject): void {
  const spec = specOf(crd);
  crd['spec'] = spec;
  const names = fieldsOf(spec['names']);
  const kind = textOf(names['kind']);
  if (isFields(spec['names'])) {
    if (textOf(names['singular']) === '' && kind !== '') names['singular'] = kind.toLowerCase();
    if (textOf(names['listKind']) === '' && kind !== '') names['listKind'] = `${kind}List`;
  }
  if (!isFields(spec['conversion'])) spec['conversion'] = { strategy: 'None' };
  const service = fieldsOf(fieldsOf(fieldsOf(spec['conversion'])['webhook'])['clientConfig'])['service'];
  if (isFields(service) && (service['port'] === undefined || service['port'] === null)) service['port'] = 443;
  const status = crd['status'];
  if ((listOf(fieldsOf(status as JsonValue | undefined)['storedVersions']) ?? []).length === 0) {
    const storage = (listOf(spec['versions']) ?? []).map(fieldsOf).find((version) => version['storage'] === true);
    if (storage !== undefined) crd['status'] = { ...fieldsOf(status as JsonValue | undefined), storedVersions: [textOf(storage['name'])] };
  }
}

// ---- prepare ----

/** The storage version's name, as the strategies look it up (the first version marked storage). */
function storageVersion(spec: Fields): string | undefined {
  const storage = (listOf(spec['versions']) ?? []).map(fieldsOf).find((version) => version['storage'] === true);
  return storage === undefined ? undefined : textOf(storage['name']);
}

/**
 * PrepareForCreate, in place: the status is cleared (a new CRD accepts no names and has no
 * conditions; Go writes the empty acceptedNames' plural and kind) and its storedVersions is the
 * storage version; the generation is 1.
 */
export function prepareCustomResourceDefinitionForCreate(crd: KubeObject): void {
  const storage = storageVersion(specOf(crd));
  crd['status'] = { acceptedNames: { plural: '', kind: '' }, ...(storage !== undefined ? { storedVersions: [storage] } : {}) };
  crd.metadata.generation = 1;
}

/**
 * PrepareForUpdate of the main resource, in place: the status is the stored one (plus the
 * storage version in storedVersions, when new), and the generation goes up by one when the spec
 * changed (Go's semantic equality: an absent field equals its zero value).
 */
export function prepareCustomResourceDefinitionForUpdate(crd: KubeObject, old: KubeObject): void {
  const status = structuredClone(objectField(old, 'status'));
  const storage = storageVersion(specOf(crd));
  const stored = (listOf(status['storedVersions']) ?? []).map(textOf);
  if (storage !== undefined && !stored.includes(storage)) status['storedVersions'] = [...stored, storage];
  if (isFields(old['status'] as JsonValue | undefined) || storage !== undefined) crd['status'] = status;
  else delete crd['status'];
  const generation = old.metadata.generation ?? 0;
  crd.metadata.generation = semanticEqual(crdMessages.spec, specOf(crd), specOf(old)) ? generation : generation + 1;
}

/**
 * The status subresource's PrepareForUpdate, in place: the spec is the stored one. (kube's
 * statusStrategy resets the metadata onto itself, so a CRD status write keeps its metadata
 * changes: the finalizer controller removes its finalizer through it.)
 */
export function prepareCustomResourceDefinitionStatusUpdate(crd: KubeObject, old: KubeObject): void {
  const spec = old['spec'];
  if (spec === undefined) delete crd['spec'];
  else crd['spec'] = structuredClone(spec);
}

// ---- validation ----

interface ValidationOptions {
  readonly requireRecognizedReviewVersion: boolean;
  /** scope and names.kind are immutable once the CRD is Established. */
  readonly requireImmutableNames: boolean;
  readonly requireOpenApiSchema: boolean;
  readonly allowInvalidCaBundle: boolean;
}

function isEstablished(crd: KubeObject): boolean {
  return (listOf(objectField(crd, 'status')['conditions']) ?? []).map(fieldsOf)
    .some((condition) => condition['type'] === 'Established' && condition['status'] === 'True');
}

/** Whether the spec or every version has an openAPIV3Schema. */
function allVersionsSpecifySchema(spec: InternalSpec): boolean {
  if (isFields(spec.validation?.['openAPIV3Schema'])) return true;
  return (spec.versions ?? []).every((version) => isFields(version.schema?.['openAPIV3Schema']));
}

function schemaAt(validation: Fields | undefined): Fields | undefined {
  const schema = validation?.['openAPIV3Schema'];
  return isFields(schema) ? schema : undefined;
}

function versionCauses(
  version: InternalVersion, field: string, statusEnabled: boolean, spec: InternalSpec, old: KubeObject | undefined, schemaCauses: SchemaCauses | undefined,
): StatusCause[] {
  const causes: StatusCause[] = [];
  for (const problem of deprecationWarningProblems(version)) causes.push(invalidText(`${field}.deprecationWarning`, version.deprecationWarning ?? '', problem));
  const schema = schemaAt(version.schema);
  if (schema !== undefined && schemaCauses !== undefined) {
    causes.push(...schemaCauses(schema, `${field}.schema.openAPIV3Schema`, {
      version: version.name, statusEnabled, preserveUnknownFields: spec.preserveUnknownFields, old,
    }));
  }
  causes.push(...subresourcesCauses(version.subresources, `${field}.subresources`));
  (version.additionalPrinterColumns ?? []).forEach((column, index) => causes.push(...columnCauses(column, `${field}.additionalPrinterColumns[${index}]`)));
  if ((version.selectableFields ?? []).length > 0) {
    if (schema === undefined) {
      causes.push(invalidText(`${field}.selectableFields`, '', 'selectableFields may only be set when version.schema.openAPIV3Schema is not included'));
    } else {
      causes.push(...selectableFieldsCauses(version.selectableFields!, schema, `${field}.selectableFields`));
    }
  }
  return causes;
}

/** validateCustomResourceDefinitionSpec, at `spec`. */
function specCauses(spec: InternalSpec, options: ValidationOptions, old: KubeObject | undefined, schemaCauses: SchemaCauses | undefined): StatusCause[] {
  const causes: StatusCause[] = [];
  if (spec.group === '') causes.push(required('spec.group'));
  else if (groupProblems(spec.group) !== '') causes.push(invalidText('spec.group', spec.group, groupProblems(spec.group)));
  else if (spec.group.split('.').length < 2) causes.push(invalidText('spec.group', spec.group, 'should be a domain with at least one dot'));

  if (spec.scope === '') causes.push(required('spec.scope'));
  else if (!['Cluster', 'Namespaced'].includes(spec.scope)) {
    causes.push(notSupportedText('spec.scope', spec.scope, ['Cluster', 'Namespaced']));
  }

  const versions = spec.versions ?? [];
  if (schemaAt(spec.validation) === undefined) {
    versions.forEach((version, index) => {
      const path = `spec.versions[${index}].schema.openAPIV3Schema`;
      if (options.requireOpenApiSchema && schemaAt(version.schema) === undefined) causes.push(required(path, 'schemas are required'));
      else if (!options.requireOpenApiSchema && !spec.preserveUnknownFields && version.served && schemaAt(version.schema) === undefined) {
        causes.push(required(path, 'because otherwise all fields are pruned'));
      }
    });
  }
  if (spec.preserveUnknownFields && schemasOf(spec).some((schema) => schemaHas(schema, (node) => node['default'] !== undefined && node['default'] !== null))) {
    causes.push(invalidRendered('spec.preserveUnknownFields', 'true', 'must be false in order to use defaults in the schema'));
  }

  let storageCount = 0;
  const seen = new Set<string>();
  let unique = true;
  versions.forEach((version, index) => {
    if (version.storage) storageCount++;
    if (seen.has(version.name)) unique = false;
    else seen.add(version.name);
    const problems = dns1035LabelProblems(version.name);
    if (problems.length > 0) causes.push(invalidText(`spec.versions[${index}].name`, version.name, problems.join(',')));
    const statusEnabled = isFields(subresourcesForVersion(spec, version.name)?.['status']);
    causes.push(...versionCauses(version, `spec.versions[${index}]`, statusEnabled, spec, old, schemaCauses));
  });
  // v1 has no spec-level schema, subresources or columns of its own: the conversion moves them
  // there only when every version has the same, so kube's "mutually exclusive" and "may not all
  // be set to identical values" rules cannot fail for a v1 object.
  if (!unique) causes.push(invalidRendered('spec.versions', goVersions(spec.versions), 'must contain unique version names'));
  if (storageCount !== 1) causes.push(invalidRendered('spec.versions', goVersions(spec.versions), 'must have exactly one version marked as storage version'));
  if (spec.version !== '') {
    const problems = dns1035LabelProblems(spec.version);
    if (problems.length > 0) causes.push(invalidText('spec.version', spec.version, problems.join(',')));
  }

  for (const name of ['plural', 'singular', 'kind', 'listKind']) {
    if (textOf(spec.names[name]) === '') causes.push(required(`spec.names.${name}`));
  }
  causes.push(...namesCauses(spec.names, 'spec.names'));
  const topSchema = schemaAt(spec.validation);
  if (topSchema !== undefined && schemaCauses !== undefined) {
    causes.push(...schemaCauses(topSchema, 'spec.validation.openAPIV3Schema', {
      version: undefined, statusEnabled: anyStatusEnabled(spec), preserveUnknownFields: spec.preserveUnknownFields, old,
    }));
  }
  causes.push(...subresourcesCauses(spec.subresources, 'spec.subresources'));
  (spec.additionalPrinterColumns ?? []).forEach((column, index) => causes.push(...columnCauses(column, `spec.additionalPrinterColumns[${index}]`)));
  if ((spec.selectableFields ?? []).length > 0) {
    if (spec.validation === undefined) causes.push(invalidText('spec.selectableFields', '', 'selectableFields may only be set when validations.schema is included'));
    else causes.push(...selectableFieldsCauses(spec.selectableFields!, topSchema, 'spec.selectableFields'));
  }
  if (spec.conversion !== undefined && spec.conversion.strategy !== 'None' && spec.preserveUnknownFields) {
    causes.push(invalidText('spec.conversion.strategy', spec.conversion.strategy, 'must be None if spec.preserveUnknownFields is true'));
  }
  causes.push(...conversionCauses(spec.conversion, { requireRecognizedReviewVersion: options.requireRecognizedReviewVersion, allowInvalidCaBundle: options.allowInvalidCaBundle }));
  return causes;
}

/** The rules of the whole object that follow the spec's (status names, stored versions, approval, preserveUnknownFields). */
function trailingCauses(crd: KubeObject, spec: InternalSpec, old: KubeObject | undefined): StatusCause[] {
  const status = objectField(crd, 'status');
  const storedList = listOf(status['storedVersions']);
  return [
    ...namesCauses(fieldsOf(status['acceptedNames']), 'status.acceptedNames'),
    ...storedVersionsCauses(storedList === undefined ? undefined : storedList.map(textOf), spec.versions ?? []),
    ...apiApprovalCauses(spec.group, crd.metadata.annotations, old?.metadata.annotations, old !== undefined),
    ...(spec.preserveUnknownFields && !(old !== undefined && specOf(old)['preserveUnknownFields'] === true)
      ? [invalidRendered('spec.preserveUnknownFields', 'true', 'cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead')]
      : []),
  ];
}

/**
 * ValidateCustomResourceDefinition (no `old`) or ValidateCustomResourceDefinitionUpdate of the
 * main resource, in kube's order: metadata.name must be `<plural>.<group>` (on create; the
 * generic metadata rules are the caller's), the spec, the immutable fields (group and plural
 * always; scope and kind once Established), status.acceptedNames, status.storedVersions, the API
 * approval annotation of *.k8s.io and *.kubernetes.io groups, and preserveUnknownFields (true is
 * refused unless it already was). `schemaCauses` checks each openAPIV3Schema's contents.
 */
export function customResourceDefinitionCauses(crd: KubeObject, old?: KubeObject, schemaCauses?: SchemaCauses): StatusCause[] {
  const spec = internalSpec(specOf(crd));
  const causes: StatusCause[] = [];
  if (old === undefined) {
    const requiredName = `${textOf(spec.names['plural'])}.${spec.group}`;
    const generateName = crd.metadata.generateName ?? '';
    if (generateName !== '' && generateName !== requiredName) causes.push(invalidText('metadata.generateName', generateName, 'must be spec.names.plural+"."+spec.group'));
    const name = crd.metadata.name ?? '';
    if (name !== '' && name !== requiredName) causes.push(invalidText('metadata.name', name, 'must be spec.names.plural+"."+spec.group'));
  }
  const oldSpec = old === undefined ? undefined : internalSpec(specOf(old));
  const options: ValidationOptions = old === undefined || oldSpec === undefined
    ? { requireRecognizedReviewVersion: true, requireImmutableNames: false, requireOpenApiSchema: true, allowInvalidCaBundle: true }
    : {
      requireRecognizedReviewVersion: oldSpec.conversion === undefined || hasAcceptedReviewVersionOrEmpty(oldSpec.conversion.conversionReviewVersions),
      requireImmutableNames: isEstablished(old),
      requireOpenApiSchema: allVersionsSpecifySchema(oldSpec),
      allowInvalidCaBundle: !isEstablished(old) || hasInvalidCaBundle(oldSpec.conversion?.webhookClientConfig),
    };
  causes.push(...specCauses(spec, options, old, schemaCauses));
  if (old !== undefined && oldSpec !== undefined) {
    if (options.requireImmutableNames) {
      causes.push(...immutable('spec.scope', spec.scope, oldSpec.scope));
      causes.push(...immutable('spec.names.kind', textOf(spec.names['kind']), textOf(oldSpec.names['kind'])));
    }
    causes.push(...immutable('spec.group', spec.group, oldSpec.group));
    causes.push(...immutable('spec.names.plural', textOf(spec.names['plural']), textOf(oldSpec.names['plural'])));
  }
  causes.push(...trailingCauses(crd, spec, old));
  return causes;
}

/** ValidateUpdateCustomResourceDefinitionStatus (the status subresource): status.acceptedNames' formats. */
export function customResourceDefinitionStatusCauses(crd: KubeObject): StatusCause[] {
  return namesCauses(fieldsOf(objectField(crd, 'status')['acceptedNames']), 'status.acceptedNames');
}

/**
 * The CRD kind's Strategy: defaults then kube's prepare steps, the create and update rules
 * (validate is left unset: kstore calls validate on updates too, and kube's update and status
 * rules differ from its create rules), no create on PUT.
 */
export function customResourceDefinitionStrategy(schemaCauses?: SchemaCauses): Strategy {
  return {
    allowCreateOnUpdate: false,
    prepareForCreate(object) {
      defaultCustomResourceDefinition(object);
      prepareCustomResourceDefinitionForCreate(object);
    },
    prepareForUpdate(object, old) {
      defaultCustomResourceDefinition(object);
      prepareCustomResourceDefinitionForUpdate(object, old);
    },
    prepareForSubresourceUpdate(subresource, object, old) {
      defaultCustomResourceDefinition(object);
      if (subresource === 'status') prepareCustomResourceDefinitionStatusUpdate(object, old);
    },
    validateCreate: (object) => customResourceDefinitionCauses(object, undefined, schemaCauses),
    validateUpdate: (object, old, subresource) => (subresource === 'status'
      ? customResourceDefinitionStatusCauses(object)
      : customResourceDefinitionCauses(object, old, schemaCauses)),
  };
}
