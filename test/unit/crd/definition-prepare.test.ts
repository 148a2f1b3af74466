// Owns: the check of the CustomResourceDefinition defaults and prepare steps of
// api/crd/definition.ts: v1's defaults (singular, listKind, conversion None, webhook port 443,
// storedVersions), the status reset on create, the status kept and the generation bumped only on
// a semantic spec change on update, and the status subresource taking the stored spec.
import { describe, expect, it } from 'vitest';
import {
  defaultCustomResourceDefinition, prepareCustomResourceDefinitionForCreate, prepareCustomResourceDefinitionForUpdate,
  prepareCustomResourceDefinitionStatusUpdate,
} from '../../../api/crd/definition.ts';
import { specOf, storedCrd, widgetCrd, widgetVersion } from './definition-fixtures.ts';
import type { Fields } from './definition-fixtures.ts';

describe('defaults', () => {
  it('singular and listKind from the kind, conversion None, storedVersions from the storage version', () => {
    const crd = widgetCrd({ names: { plural: 'widgets', kind: 'Widget' }, versions: [widgetVersion('v1beta1', { storage: false }), widgetVersion('v1')] });
    defaultCustomResourceDefinition(crd);
    expect(specOf(crd)['names']).toEqual({ plural: 'widgets', kind: 'Widget', singular: 'widget', listKind: 'WidgetList' });
    expect(specOf(crd)['conversion']).toEqual({ strategy: 'None' });
    expect(crd['status']).toEqual({ storedVersions: ['v1'] });
  });

  it('keeps what is set, and leaves served and storage alone (required in v1)', () => {
    const crd = widgetCrd({
      names: { plural: 'widgets', singular: 'thing', kind: 'Widget', listKind: 'Widgets' },
      conversion: { strategy: 'Webhook', webhook: { clientConfig: { service: { namespace: 'ns', name: 'svc' } }, conversionReviewVersions: ['v1'] } },
      versions: [{ name: 'v1', schema: { openAPIV3Schema: { type: 'object' } } }],
    });
    crd['status'] = { storedVersions: ['v0'] };
    defaultCustomResourceDefinition(crd);
    expect(specOf(crd)['names']).toEqual({ plural: 'widgets', singular: 'thing', kind: 'Widget', listKind: 'Widgets' });
    expect(specOf(crd)['conversion']).toEqual({
      strategy: 'Webhook', webhook: { clientConfig: { service: { namespace: 'ns', name: 'svc', port: 443 } }, conversionReviewVersions: ['v1'] },
    });
    expect(specOf(crd)['versions']).toEqual([{ name: 'v1', schema: { openAPIV3Schema: { type: 'object' } } }]);
    expect(crd['status']).toEqual({ storedVersions: ['v0'] });
  });

  it('sets no singular or listKind without a kind', () => {
    const crd = widgetCrd({ names: { plural: 'widgets' } });
    defaultCustomResourceDefinition(crd);
    expect(specOf(crd)['names']).toEqual({ plural: 'widgets' });
  });
});

describe('create', () => {
  it('clears the status (empty accepted names, no conditions), stores the storage version, generation 1', () => {
    const crd = widgetCrd({ versions: [widgetVersion('v1beta1', { storage: false }), widgetVersion('v1')] });
    crd['status'] = { conditions: [{ type: 'Established', status: 'True' }], acceptedNames: { plural: 'x', kind: 'X' }, storedVersions: ['v0'] };
    crd.metadata.generation = 7;
    prepareCustomResourceDefinitionForCreate(crd);
    expect(crd['status']).toEqual({ acceptedNames: { plural: '', kind: '' }, storedVersions: ['v1'] });
    expect(crd.metadata.generation).toBe(1);
  });
});

describe('update of the main resource', () => {
  it('keeps the stored status whatever the request says, adding a new storage version to storedVersions', () => {
    const old = storedCrd(widgetCrd({ versions: [widgetVersion('v1beta1', { storage: false }), widgetVersion('v1')] }));
    const crd = structuredClone(old);
    crd['status'] = { storedVersions: [] };
    specOf(crd)['versions'] = [widgetVersion('v1beta1'), widgetVersion('v1', { storage: false })];
    prepareCustomResourceDefinitionForUpdate(crd, old);
    expect((crd['status'] as Fields)['storedVersions']).toEqual(['v1', 'v1beta1']);
    expect((crd['status'] as Fields)['conditions']).toEqual((old['status'] as Fields)['conditions']);
    expect(crd.metadata.generation).toBe(2);
  });

  it('bumps the generation only when the spec changes as Go compares it', () => {
    const old = storedCrd(widgetCrd());
    const same = structuredClone(old);
    specOf(same)['preserveUnknownFields'] = false;
    (specOf(same)['names'] as Fields)['shortNames'] = [];
    (specOf(same)['versions'] as Fields[])[0]!['deprecated'] = false;
    (specOf(same)['versions'] as Fields[])[0]!['additionalPrinterColumns'] = [];
    (specOf(same)['versions'] as Fields[])[0]!['unknownField'] = 'dropped by Go';
    prepareCustomResourceDefinitionForUpdate(same, old);
    expect(same.metadata.generation).toBe(1);

    const changed = structuredClone(old);
    (specOf(changed)['versions'] as Fields[])[0]!['subresources'] = { status: {} };
    prepareCustomResourceDefinitionForUpdate(changed, old);
    expect(changed.metadata.generation).toBe(2);

    const schemaChanged = structuredClone(old);
    const schema = ((specOf(schemaChanged)['versions'] as Fields[])[0]!['schema'] as Fields)['openAPIV3Schema'] as Fields;
    schema['description'] = 'a widget';
    prepareCustomResourceDefinitionForUpdate(schemaChanged, old);
    expect(schemaChanged.metadata.generation).toBe(2);
  });
});

describe('update of the status subresource', () => {
  it('takes the stored spec, keeps the requested status', () => {
    const old = storedCrd(widgetCrd());
    const crd = structuredClone(old);
    specOf(crd)['scope'] = 'Cluster';
    crd['status'] = { acceptedNames: { plural: 'widgets', kind: 'Widget' }, storedVersions: ['v1'] };
    prepareCustomResourceDefinitionStatusUpdate(crd, old);
    expect(specOf(crd)).toEqual(specOf(old));
    expect(crd['status']).toEqual({ acceptedNames: { plural: 'widgets', kind: 'Widget' }, storedVersions: ['v1'] });
  });
});
