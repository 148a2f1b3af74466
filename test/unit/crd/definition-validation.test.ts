// Owns: the check of kube-apiserver 1.33's CustomResourceDefinition validation in
// api/crd/definition.ts, rule family by rule family, with kube's exact messages and field paths:
// the name, group, scope, versions and storage, names, schemas required, subresources, printer
// columns, selectable fields, conversion, deprecation warnings, API approval, preserveUnknownFields,
// the update rules (immutable fields, stored versions) and the status subresource, and where the
// v1→internal conversion makes kube report a rule (spec.validation, spec.subresources, …).
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../actors/index.ts';
import {
  customResourceDefinitionCauses, customResourceDefinitionStatusCauses, customResourceDefinitionStrategy,
} from '../../../api/crd/definition.ts';
import type { SchemaContext } from '../../../api/crd/definition.ts';
import {
  createCauses, dns1035Message, invalid, requiredCause, specOf, storedCrd, updateCauses, widgetCrd, widgetSchema, widgetVersion,
} from './definition-fixtures.ts';
import type { Fields } from './definition-fixtures.ts';

const dns1123SubdomainMessage = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const storageVersionsMessage = 'must have exactly one version marked as storage version';

/** %#v of one internal version without schema, subresources, columns or selectable fields. */
function goVersion(name: string, served: boolean, storage: boolean, schema = false): string {
  return `apiextensions.CustomResourceDefinitionVersion{Name:"${name}", Served:${served}, Storage:${storage}, Deprecated:false, `
    + `DeprecationWarning:(*string)(nil), Schema:(*apiextensions.CustomResourceValidation)(${schema ? '0xc000000000' : 'nil'}), `
    + 'Subresources:(*apiextensions.CustomResourceSubresources)(nil), AdditionalPrinterColumns:[]apiextensions.CustomResourceColumnDefinition(nil), '
    + 'SelectableFields:[]apiextensions.SelectableField(nil)}';
}

describe('a valid CRD', () => {
  it('has no causes on create, and none on an unchanged update', () => {
    expect(createCauses(widgetCrd())).toEqual([]);
    const old = storedCrd(widgetCrd());
    expect(updateCauses(structuredClone(old), old)).toEqual([]);
  });
});

describe('metadata.name', () => {
  it('must be <plural>.<group> on create (and so must a generateName)', () => {
    expect(createCauses(widgetCrd({}, { name: 'gadgets.example.com' }))).toEqual([
      invalid('metadata.name', 'Invalid value: "gadgets.example.com": must be spec.names.plural+"."+spec.group'),
    ]);
    expect(createCauses(widgetCrd({}, { generateName: 'widgets-' }))).toEqual([
      invalid('metadata.generateName', 'Invalid value: "widgets-": must be spec.names.plural+"."+spec.group'),
    ]);
  });
});

describe('spec.group and spec.scope', () => {
  it('group: required, a DNS subdomain, with at least one dot', () => {
    expect(createCauses(widgetCrd({ group: '' }, { name: 'widgets.' }))).toEqual([requiredCause('spec.group')]);
    expect(createCauses(widgetCrd({ group: 'Example.com' }, { name: 'widgets.Example.com' }))).toEqual([
      invalid('spec.group', `Invalid value: "Example.com": ${dns1123SubdomainMessage}`),
    ]);
    expect(createCauses(widgetCrd({ group: 'example' }, { name: 'widgets.example' }))).toEqual([
      invalid('spec.group', 'Invalid value: "example": should be a domain with at least one dot'),
    ]);
  });

  it('scope: required, Cluster or Namespaced', () => {
    expect(createCauses(widgetCrd({ scope: '' }))).toEqual([requiredCause('spec.scope')]);
    expect(createCauses(widgetCrd({ scope: 'Global' }))).toEqual([
      { reason: 'FieldValueNotSupported', field: 'spec.scope', message: 'Unsupported value: "Global": supported values: "Cluster", "Namespaced"' },
    ]);
  });
});

describe('spec.versions', () => {
  it('exactly one storage version (the message prints the internal versions, schemas moved to the spec)', () => {
    const causes = createCauses(widgetCrd({ versions: [widgetVersion('v1', { storage: false })] }));
    expect(causes).toEqual([
      invalid('spec.versions', `Invalid value: []apiextensions.CustomResourceDefinitionVersion{${goVersion('v1', true, false)}}: ${storageVersionsMessage}`),
      invalid('status.storedVersions', 'Invalid value: []string(nil): must have at least one stored version'),
    ]);
    // The create stores the first storage version only, so the second is missing from storedVersions too.
    const two = createCauses(widgetCrd({ versions: [widgetVersion('v1'), widgetVersion('v2')] }));
    expect(two).toEqual([
      invalid('spec.versions', `Invalid value: []apiextensions.CustomResourceDefinitionVersion{${goVersion('v1', true, true)}, ${goVersion('v2', true, true)}}: ${storageVersionsMessage}`),
      invalid('status.storedVersions', 'Invalid value: []string{"v1"}: must have the storage version v2'),
    ]);
  });

  it('no versions at all is the storage rule too', () => {
    expect(createCauses(widgetCrd({ versions: [] }))).toEqual([
      invalid('spec.versions', `Invalid value: []apiextensions.CustomResourceDefinitionVersion{}: ${storageVersionsMessage}`),
      invalid('status.storedVersions', 'Invalid value: []string(nil): must have at least one stored version'),
    ]);
  });

  it('unique DNS-1035 names; the first one is checked again as spec.version', () => {
    const causes = createCauses(widgetCrd({ versions: [widgetVersion('V1'), widgetVersion('V1', { storage: false })] }));
    expect(causes).toEqual([
      invalid('spec.versions[0].name', `Invalid value: "V1": ${dns1035Message}`),
      invalid('spec.versions[1].name', `Invalid value: "V1": ${dns1035Message}`),
      invalid('spec.versions', `Invalid value: []apiextensions.CustomResourceDefinitionVersion{${goVersion('V1', true, true)}, ${goVersion('V1', true, false)}}: must contain unique version names`),
      invalid('spec.version', `Invalid value: "V1": ${dns1035Message}`),
    ]);
  });

  it('per-version schemas stay per version when they differ, and show as set pointers', () => {
    const other = { ...widgetVersion('v2', { storage: false }), schema: { openAPIV3Schema: { type: 'object' } } };
    const causes = createCauses(widgetCrd({ versions: [widgetVersion('v1', { storage: false }), other] }));
    expect(causes[0]).toEqual(invalid('spec.versions',
      `Invalid value: []apiextensions.CustomResourceDefinitionVersion{${goVersion('v1', true, false, true)}, ${goVersion('v2', true, false, true)}}: ${storageVersionsMessage}`));
  });

  it('every version needs a schema', () => {
    const { schema: _schema, ...bare } = widgetVersion('v2', { storage: false });
    expect(createCauses(widgetCrd({ versions: [widgetVersion('v1'), bare] }))).toEqual([
      requiredCause('spec.versions[1].schema.openAPIV3Schema', 'Required value: schemas are required'),
    ]);
  });

  it('deprecationWarning: only on deprecated versions, 1 to 256 bytes, printable', () => {
    expect(createCauses(widgetCrd({ versions: [widgetVersion('v1', { deprecationWarning: 'old' })] }))).toEqual([
      invalid('spec.versions[0].deprecationWarning', 'Invalid value: "old": can only be set for deprecated versions'),
    ]);
    expect(createCauses(widgetCrd({ versions: [widgetVersion('v1', { deprecated: true, deprecationWarning: '' })] }))).toEqual([
      invalid('spec.versions[0].deprecationWarning', 'Invalid value: "": must not be an empty string'),
    ]);
    expect(createCauses(widgetCrd({ versions: [widgetVersion('v1', { deprecated: true, deprecationWarning: 'é'.repeat(129) })] }))).toEqual([
      invalid('spec.versions[0].deprecationWarning', `Invalid value: "${'é'.repeat(129)}": must be <= 256 characters long`),
    ]);
    expect(createCauses(widgetCrd({ versions: [widgetVersion('v1', { deprecated: true, deprecationWarning: 'é\u0001' })] }))).toEqual([
      invalid('spec.versions[0].deprecationWarning', 'Invalid value: "é\\x01": must only contain printable UTF-8 characters; non-printable character found at index 2'),
    ]);
    expect(createCauses(widgetCrd({ versions: [widgetVersion('v1', { deprecated: true, deprecationWarning: 'use v2' })] }))).toEqual([]);
  });
});

describe('spec.names', () => {
  it('plural, singular, kind and listKind are required (singular and listKind are defaulted from the kind)', () => {
    const causes = createCauses(widgetCrd({ names: { plural: '' } }, { name: '.example.com' }));
    expect(causes).toEqual([
      requiredCause('spec.names.plural'), requiredCause('spec.names.singular'), requiredCause('spec.names.kind'), requiredCause('spec.names.listKind'),
    ]);
  });

  it('formats: DNS-1035 labels, mixed-case kinds, kind differs from listKind', () => {
    const names = { plural: 'Widgets', singular: 'widget_', kind: 'Wid.get', listKind: 'Wid.get', shortNames: ['ok', 'No'], categories: ['all', '1st'] };
    expect(createCauses(widgetCrd({ names }, { name: 'Widgets.example.com' }))).toEqual([
      invalid('spec.names.plural', `Invalid value: "Widgets": ${dns1035Message}`),
      invalid('spec.names.singular', `Invalid value: "widget_": ${dns1035Message}`),
      invalid('spec.names.kind', `Invalid value: "Wid.get": may have mixed case, but should otherwise match: ${dns1035Message}`),
      invalid('spec.names.listKind', `Invalid value: "Wid.get": may have mixed case, but should otherwise match: ${dns1035Message}`),
      invalid('spec.names.shortNames[1]', `Invalid value: "No": ${dns1035Message}`),
      invalid('spec.names.listKind', 'Invalid value: "Wid.get": kind and listKind may not be the same'),
      invalid('spec.names.categories[1]', `Invalid value: "1st": ${dns1035Message}`),
    ]);
  });

  it('status.acceptedNames follows the same formats', () => {
    const crd = storedCrd(widgetCrd());
    (crd['status'] as Fields)['acceptedNames'] = { plural: 'Widgets', kind: 'Widget' };
    expect(customResourceDefinitionStatusCauses(crd)).toEqual([invalid('status.acceptedNames.plural', `Invalid value: "Widgets": ${dns1035Message}`)]);
  });
});

describe('subresources', () => {
  const scale = (paths: Fields): Fields => widgetVersion('v1', { subresources: { status: {}, scale: paths } });

  it('scale paths: spec under .spec., status under .status., selector under either (at spec.subresources when every version has the same)', () => {
    const causes = createCauses(widgetCrd({ versions: [scale({ specReplicasPath: 'spec.replicas', labelSelectorPath: '.metadata.labels' })] }));
    expect(causes).toEqual([
      invalid('spec.subresources.scale.specReplicasPath', 'Invalid value: "spec.replicas": must be a simple json path starting with .'),
      requiredCause('spec.subresources.scale.statusReplicasPath'),
      invalid('spec.subresources.scale.labelSelectorPath', 'Invalid value: ".metadata.labels": should be a json path under either .spec or .status'),
    ]);
    expect(createCauses(widgetCrd({ versions: [scale({ specReplicasPath: '.status.replicas', statusReplicasPath: '.spec.replicas' })] }))).toEqual([
      invalid('spec.subresources.scale.specReplicasPath', 'Invalid value: ".status.replicas": should be a json path under .spec'),
      invalid('spec.subresources.scale.statusReplicasPath', 'Invalid value: ".spec.replicas": should be a json path under .status'),
    ]);
  });

  it('per-version subresources are reported per version', () => {
    const versions = [widgetVersion('v1'), widgetVersion('v2', { storage: false, subresources: { scale: { specReplicasPath: '.spec.size' } } })];
    expect(createCauses(widgetCrd({ versions }))).toEqual([requiredCause('spec.versions[1].subresources.scale.statusReplicasPath')]);
  });
});

describe('additionalPrinterColumns', () => {
  it('name, type, format and JSONPath (kube names the path field JSONPath)', () => {
    const columns: Fields[] = [
      { name: 'Color', type: 'text', format: 'uuid', jsonPath: 'spec.color' },
      { name: '', jsonPath: '' },
      { name: 'Size', type: 'integer', format: 'int32', jsonPath: '.spec.size', priority: 1 },
    ];
    expect(createCauses(widgetCrd({ versions: [widgetVersion('v1', { additionalPrinterColumns: columns })] }))).toEqual([
      invalid('spec.additionalPrinterColumns[0].type', 'Invalid value: "text": must be one of boolean,date,integer,number,string'),
      invalid('spec.additionalPrinterColumns[0].format', 'Invalid value: "uuid": must be one of byte,date,date-time,double,float,int32,int64,password'),
      invalid('spec.additionalPrinterColumns[0].JSONPath', 'Invalid value: "spec.color": must be a simple json path starting with .'),
      requiredCause('spec.additionalPrinterColumns[1].name'),
      requiredCause('spec.additionalPrinterColumns[1].type', 'Required value: must be one of boolean,date,integer,number,string'),
      requiredCause('spec.additionalPrinterColumns[1].JSONPath'),
    ]);
  });
});

describe('selectableFields', () => {
  const withFields = (paths: readonly string[]): KubeObject => widgetCrd({ versions: [widgetVersion('v1', { selectableFields: paths.map((jsonPath) => ({ jsonPath })) })] });

  it('string, boolean or integer fields of the schema (map values too), not metadata, no bracket notation, unique', () => {
    expect(createCauses(withFields(['.spec.color', '.spec.size', '.spec.ready', '.spec.labels.app', '.spec.nested.a']))).toEqual([]);
    const at = (index: number): string => `spec.selectableFields[${index}].jsonPath`;
    const paths = ['.spec.missing', '.spec.ratio', '.spec.items[0]', 'spec.color', '.metadata.name', '.spec.color', '.spec.color', '', ".spec['size']", '.spec.'];
    expect(createCauses(withFields(paths))).toEqual([
      invalid(at(0), 'Invalid value: ".spec.missing": is an invalid path: does not refer to a valid field'),
      invalid(at(1), 'Invalid value: ".spec.ratio": must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.'),
      invalid(at(2), 'Invalid value: ".spec.items[0]": is an invalid path: array notation is not allowed'),
      invalid(at(3), 'Invalid value: "spec.color": is an invalid path: expected [ or . but got: spec'),
      invalid(at(4), 'Invalid value: ".metadata.name": must not point to fields in metadata'),
      { reason: 'FieldValueDuplicate', field: at(6), message: 'Duplicate value: ".spec.color"' },
      requiredCause(at(7)),
      invalid(at(8), 'Invalid value: ".spec[\'size\']": is an invalid path: array notation is not allowed'),
      invalid(at(9), 'Invalid value: ".spec.": is an invalid path: unexpected end of JSON path'),
    ]);
  });

  it('at most 8 distinct fields', () => {
    const paths = ['.spec.color', '.spec.size', '.spec.ready', '.spec.nested.a', '.spec.nested.b', '.spec.nested.c', '.spec.nested.d', '.spec.nested.e', '.spec.labels.x'];
    expect(createCauses(withFields(paths))).toEqual([{ reason: 'FieldValueTooMany', field: 'spec.selectableFields', message: 'Too many: 9: must have at most 8 items' }]);
  });

  it('a version with its own selectable fields but the shared schema is refused, as kube 1.33 does', () => {
    const versions = [widgetVersion('v1', { selectableFields: [{ jsonPath: '.spec.color' }] }), widgetVersion('v2', { storage: false })];
    expect(createCauses(widgetCrd({ versions }))).toEqual([
      invalid('spec.versions[0].selectableFields', 'Invalid value: "": selectableFields may only be set when version.schema.openAPIV3Schema is not included'),
    ]);
    const ownSchemas = [
      widgetVersion('v1', { selectableFields: [{ jsonPath: '.spec.color' }] }),
      { ...widgetVersion('v2', { storage: false }), schema: { openAPIV3Schema: { ...widgetSchema(), description: 'v2' } } },
    ];
    expect(createCauses(widgetCrd({ versions: ownSchemas }))).toEqual([]);
  });
});

describe('spec.conversion', () => {
  const webhook = (webhookFields: Fields | undefined): KubeObject => widgetCrd({ conversion: { strategy: 'Webhook', ...(webhookFields ? { webhook: webhookFields } : {}) } });

  it('strategy: required, None or Webhook', () => {
    expect(createCauses(widgetCrd({ conversion: { strategy: '' } }))).toEqual([requiredCause('spec.conversion.strategy')]);
    expect(createCauses(widgetCrd({ conversion: { strategy: 'Magic' } }))).toEqual([
      { reason: 'FieldValueNotSupported', field: 'spec.conversion.strategy', message: 'Unsupported value: "Magic": supported values: "None", "Webhook"' },
    ]);
  });

  it('Webhook needs a client config with exactly one of url or service, and review versions (kube names the internal fields)', () => {
    expect(createCauses(webhook(undefined))).toEqual([
      requiredCause('spec.conversion.webhookClientConfig', 'Required value: required when strategy is set to Webhook'),
      requiredCause('spec.conversion.conversionReviewVersions'),
    ]);
    expect(createCauses(webhook({ clientConfig: { url: 'https://x.example.com', service: { namespace: 'ns', name: 'svc' } }, conversionReviewVersions: ['v1'] }))).toEqual([
      requiredCause('spec.conversion.webhookClientConfig', 'Required value: exactly one of url or service is required'),
    ]);
  });

  it('webhook url: https, a host, no user, query or fragment', () => {
    expect(createCauses(webhook({ clientConfig: { url: 'http://user@/convert?x=1#top' }, conversionReviewVersions: ['v1'] }))).toEqual([
      invalid('spec.conversion.webhookClientConfig.url', 'Invalid value: "http": \'https\' is the only allowed URL scheme; desired format: https://host[/path]'),
      invalid('spec.conversion.webhookClientConfig.url', 'Invalid value: "": host must be specified; desired format: https://host[/path]'),
      invalid('spec.conversion.webhookClientConfig.url', 'Invalid value: "user": user information is not permitted in the URL'),
      invalid('spec.conversion.webhookClientConfig.url', 'Invalid value: "top": fragments are not permitted in the URL'),
      invalid('spec.conversion.webhookClientConfig.url', 'Invalid value: "x=1": query parameters are not permitted in the URL'),
    ]);
  });

  it('webhook service: name, namespace, port (defaulted to 443), path segments', () => {
    const crd = webhook({ clientConfig: { service: { namespace: 'ns', name: 'svc', path: '/Convert//x' } }, conversionReviewVersions: ['v1'] });
    expect(createCauses(crd)).toEqual([
      invalid('spec.conversion.webhookClientConfig.service.path', `Invalid value: "/Convert//x": segment[0]: ${dns1123SubdomainMessage}`),
      invalid('spec.conversion.webhookClientConfig.service.path', 'Invalid value: "/Convert//x": segment[1] may not be empty'),
    ]);
    expect(((((specOf(crd)['conversion'] as Fields)['webhook'] as Fields)['clientConfig'] as Fields)['service'] as Fields)['port']).toBe(443);
    expect(createCauses(webhook({ clientConfig: { service: { port: 0 } }, conversionReviewVersions: ['v1'] }))).toEqual([
      requiredCause('spec.conversion.webhookClientConfig.service.name', 'Required value: service name is required'),
      requiredCause('spec.conversion.webhookClientConfig.service.namespace', 'Required value: service namespace is required'),
      invalid('spec.conversion.webhookClientConfig.service.port', 'Invalid value: 0: port is not valid: must be between 1 and 65535, inclusive'),
    ]);
  });

  it('conversionReviewVersions: unique DNS-1035 labels, one of v1 or v1beta1', () => {
    const config = { clientConfig: { url: 'https://x.example.com/convert' } };
    expect(createCauses(webhook({ ...config, conversionReviewVersions: ['v3', 'v3', 'V4'] }))).toEqual([
      invalid('spec.conversion.conversionReviewVersions[1]', 'Invalid value: "v3": duplicate version'),
      invalid('spec.conversion.conversionReviewVersions[2]', `Invalid value: "V4": ${dns1035Message}`),
      invalid('spec.conversion.conversionReviewVersions', 'Invalid value: []string{"v3", "v3", "V4"}: must include at least one of v1, v1beta1'),
    ]);
    expect(createCauses(webhook({ ...config, conversionReviewVersions: ['v2', 'v1beta1'] }))).toEqual([]);
  });

  it('strategy None: no client config, no review versions', () => {
    const crd = widgetCrd({ conversion: { strategy: 'None', webhook: { clientConfig: { url: 'https://x.example.com' }, conversionReviewVersions: ['v1'] } } });
    expect(createCauses(crd)).toEqual([
      { reason: 'FieldValueForbidden', field: 'spec.conversion.webhookClientConfig', message: 'Forbidden: should not be set when strategy is not set to Webhook' },
      { reason: 'FieldValueForbidden', field: 'spec.conversion.conversionReviewVersions', message: 'Forbidden: should not be set when strategy is not set to Webhook' },
    ]);
  });
});

describe('preserveUnknownFields', () => {
  it('true is refused in v1, with defaults and webhook conversion refused alongside', () => {
    const schema = { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer', default: 1 } } } } };
    const crd = widgetCrd({
      preserveUnknownFields: true,
      versions: [{ ...widgetVersion('v1'), schema: { openAPIV3Schema: schema } }],
      conversion: { strategy: 'Webhook', webhook: { clientConfig: { url: 'https://x.example.com' }, conversionReviewVersions: ['v1'] } },
    });
    expect(createCauses(crd)).toEqual([
      invalid('spec.preserveUnknownFields', 'Invalid value: true: must be false in order to use defaults in the schema'),
      invalid('spec.conversion.strategy', 'Invalid value: "Webhook": must be None if spec.preserveUnknownFields is true'),
      invalid('spec.preserveUnknownFields', 'Invalid value: true: cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead'),
    ]);
  });

  it('a CRD stored with it may keep it on update', () => {
    const old = storedCrd(widgetCrd());
    specOf(old)['preserveUnknownFields'] = true;
    expect(updateCauses(structuredClone(old), old)).toEqual([]);
  });
});

describe('API approval of protected groups', () => {
  const protectedCrd = (annotations?: Record<string, string>): KubeObject => widgetCrd({ group: 'widgets.k8s.io' }, { name: 'widgets.widgets.k8s.io', ...(annotations ? { annotations } : {}) });
  const field = 'metadata.annotations[api-approved.kubernetes.io]';

  it('*.k8s.io and *.kubernetes.io need api-approved.kubernetes.io: a URL or a reason starting with unapproved', () => {
    expect(createCauses(protectedCrd())).toEqual([
      requiredCause(field, 'Required value: protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111'),
    ]);
    expect(createCauses(protectedCrd({ 'api-approved.kubernetes.io': 'yes' }))).toEqual([
      invalid(field, 'Invalid value: "yes": protected groups must have approval annotation "api-approved.kubernetes.io" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111'),
    ]);
    expect(createCauses(protectedCrd({ 'api-approved.kubernetes.io': 'https://github.com/kubernetes/kubernetes/pull/78458' }))).toEqual([]);
    expect(createCauses(protectedCrd({ 'api-approved.kubernetes.io': 'unapproved, experimental' }))).toEqual([]);
  });

  it('an update that keeps the approval state is not checked', () => {
    const old = storedCrd(protectedCrd({ 'api-approved.kubernetes.io': 'yes' }));
    expect(updateCauses(structuredClone(old), old)).toEqual([]);
  });
});

describe('updates', () => {
  it('group and plural are immutable', () => {
    const old = storedCrd(widgetCrd());
    const crd = structuredClone(old);
    specOf(crd)['group'] = 'other.example.com';
    (specOf(crd)['names'] as Fields)['plural'] = 'gadgets';
    expect(updateCauses(crd, old)).toEqual([
      invalid('spec.group', 'Invalid value: "other.example.com": field is immutable'),
      invalid('spec.names.plural', 'Invalid value: "gadgets": field is immutable'),
    ]);
  });

  it('scope and kind may change until the CRD is Established', () => {
    const change = (crd: KubeObject): KubeObject => {
      specOf(crd)['scope'] = 'Cluster';
      specOf(crd)['names'] = { plural: 'widgets', singular: 'widget', kind: 'Gadget', listKind: 'GadgetList' };
      return crd;
    };
    const installing = storedCrd(widgetCrd(), false);
    expect(updateCauses(change(structuredClone(installing)), installing)).toEqual([]);
    const established = storedCrd(widgetCrd());
    expect(updateCauses(change(structuredClone(established)), established)).toEqual([
      invalid('spec.scope', 'Invalid value: "Cluster": field is immutable'),
      invalid('spec.names.kind', 'Invalid value: "Gadget": field is immutable'),
    ]);
  });

  it('a stored version must stay in spec.versions', () => {
    const old = storedCrd(widgetCrd({ versions: [widgetVersion('v1beta1', { storage: false }), widgetVersion('v1')] }));
    (old['status'] as Fields)['storedVersions'] = ['v1beta1', 'v1'];
    const crd = structuredClone(old);
    specOf(crd)['versions'] = [widgetVersion('v1')];
    expect(updateCauses(crd, old)).toEqual([
      invalid('status.storedVersions[0]', 'Invalid value: "v1beta1": missing from spec.versions; v1beta1 was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in v1beta1 and removes v1beta1 from status.storedVersions'),
    ]);
  });

  it('stored versions must hold the storage version (a status the strategy did not prepare)', () => {
    const crd = storedCrd(widgetCrd());
    (crd['status'] as Fields)['storedVersions'] = ['v0'];
    expect(customResourceDefinitionCauses(crd)).toEqual([
      invalid('status.storedVersions', 'Invalid value: []string{"v0"}: must have the storage version v1'),
      invalid('status.storedVersions[0]', 'Invalid value: "v0": missing from spec.versions; v0 was previously a storage version, and must remain in spec.versions until a storage migration ensures no data remains persisted in v0 and removes v0 from status.storedVersions'),
    ]);
  });

  it('a CRD stored without schemas (preserveUnknownFields) needs them only on served versions once pruning is on', () => {
    const { schema: _schema, ...bare } = widgetVersion('v2', { storage: false });
    expect(createCauses(widgetCrd({ versions: [widgetVersion('v1'), bare] }))).toEqual([
      requiredCause('spec.versions[1].schema.openAPIV3Schema', 'Required value: schemas are required'),
    ]);
    const old = storedCrd(widgetCrd({ preserveUnknownFields: true, versions: [widgetVersion('v1'), bare] }));
    expect(updateCauses(structuredClone(old), old)).toEqual([]);
    const pruning = structuredClone(old);
    specOf(pruning)['preserveUnknownFields'] = false;
    expect(updateCauses(pruning, old)).toEqual([
      requiredCause('spec.versions[1].schema.openAPIV3Schema', 'Required value: because otherwise all fields are pruned'),
    ]);
    const unserved = structuredClone(pruning);
    (specOf(unserved)['versions'] as Fields[])[1]!['served'] = false;
    expect(updateCauses(unserved, old)).toEqual([]);
  });

  it('an Established CRD with a valid caBundle may not take an invalid one', () => {
    const pem = '-----BEGIN CERTIFICATE-----\nMAMCAQE=\n-----END CERTIFICATE-----\n';
    const conversion = (caBundle: string): Fields => ({
      strategy: 'Webhook', webhook: { clientConfig: { url: 'https://x.example.com', caBundle }, conversionReviewVersions: ['v1'] },
    });
    const old = storedCrd(widgetCrd({ conversion: conversion(Buffer.from(pem).toString('base64')) }));
    const crd = structuredClone(old);
    specOf(crd)['conversion'] = conversion(Buffer.from('no').toString('base64'));
    expect(updateCauses(crd, old)).toEqual([
      invalid('spec.conversion.webhookClientConfig.caBundle', 'Invalid value: []byte{0x6e, 0x6f}: unable to load root certificates: unable to parse bytes as PEM block'),
    ]);
    expect(createCauses(structuredClone(crd))).toEqual([]);
  });
});

describe('schema checks are the caller\'s, at kube\'s paths', () => {
  function calls(crd: KubeObject, old?: KubeObject): [string, SchemaContext][] {
    const seen: [string, SchemaContext][] = [];
    const check = (_schema: unknown, path: string, context: SchemaContext) => {
      seen.push([path, context]);
      return [invalid(path, 'Invalid value: "x": from the schema check')];
    };
    const causes = old === undefined ? createCauses(crd, check) : updateCauses(crd, old, check);
    expect(causes.map((cause) => cause.field)).toEqual(seen.map(([path]) => path));
    return seen;
  }

  it('one schema shared by every version is checked once at spec.validation.openAPIV3Schema', () => {
    const versions = [widgetVersion('v1', { subresources: { status: {} } }), widgetVersion('v2', { storage: false })];
    expect(calls(widgetCrd({ versions }))).toEqual([
      ['spec.validation.openAPIV3Schema', { version: undefined, statusEnabled: true, preserveUnknownFields: false, old: undefined }],
    ]);
  });

  it('schemas that differ are checked per version, with that version\'s status subresource', () => {
    const versions = [
      widgetVersion('v1', { subresources: { status: {} } }),
      { ...widgetVersion('v2', { storage: false }), schema: { openAPIV3Schema: { type: 'object' } } },
    ];
    const old = storedCrd(widgetCrd({ versions }));
    expect(calls(structuredClone(old), old)).toEqual([
      ['spec.versions[0].schema.openAPIV3Schema', { version: 'v1', statusEnabled: true, preserveUnknownFields: false, old }],
      ['spec.versions[1].schema.openAPIV3Schema', { version: 'v2', statusEnabled: false, preserveUnknownFields: false, old }],
    ]);
  });
});

describe('the strategy', () => {
  it('validates creates fully, status writes by their names only', () => {
    const strategy = customResourceDefinitionStrategy();
    expect(strategy.allowCreateOnUpdate).toBe(false);
    expect(strategy.validate).toBeUndefined();
    const crd = widgetCrd({ scope: 'Global' });
    strategy.prepareForCreate!(crd, { user: { username: 'u', groups: [] } as never });
    expect(strategy.validateCreate!(crd).map((cause) => cause.field)).toEqual(['spec.scope']);
    const old = storedCrd(widgetCrd());
    const status = structuredClone(old);
    specOf(status)['scope'] = 'Global';
    strategy.prepareForSubresourceUpdate!('status', status, old);
    expect(specOf(status)['scope']).toBe('Namespaced');
    expect(strategy.validateUpdate!(status, old, 'status')).toEqual([]);
  });
});
