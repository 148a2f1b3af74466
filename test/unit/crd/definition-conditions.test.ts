// Owns: the check of the CustomResourceDefinition controllers' status helpers of
// api/crd/definition.ts against kube's NamingConditionController, EstablishingController, CRD
// delete path and CRDFinalizer: accepted names, conflicts with the group's other CRDs and their
// reasons and messages, Established, Terminating, and when a condition's time moves.
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../actors/index.ts';
import {
  cleanupFinalizer, establishedCondition, finalizerPlan, markForDeletion, namingStatus, terminatingCondition,
} from '../../../api/crd/definition.ts';
import { createCauses, specOf, storedCrd, widgetCrd } from './definition-fixtures.ts';
import type { Fields } from './definition-fixtures.ts';

const t0 = '2025-01-01T00:00:00Z';
const t1 = '2025-02-02T00:00:00Z';

/** A freshly created CRD (status as the create left it). */
function created(spec: Fields = {}, name?: string): KubeObject {
  const crd = widgetCrd(spec, name === undefined ? {} : { name });
  createCauses(crd);
  return crd;
}

let owners = 0;

/** Another CRD (of `group`) whose names were accepted. */
function owner(group: string, names: Fields): KubeObject {
  owners++;
  return {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: `other${owners}.${group}` },
    spec: { group, names }, status: { acceptedNames: names },
  };
}

describe('namingStatus', () => {
  it('accepts the names of a new CRD: NamesAccepted True, Established False (Installing)', () => {
    const crd = created({ names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList', shortNames: ['wd'], categories: ['all'] } });
    expect(namingStatus(crd, [], t0)).toEqual({
      acceptedNames: { plural: 'widgets', singular: 'widget', shortNames: ['wd'], kind: 'Widget', listKind: 'WidgetList', categories: ['all'] },
      conditions: [
        { type: 'NamesAccepted', status: 'True', lastTransitionTime: t0, reason: 'NoConflicts', message: 'no conflicts found' },
        { type: 'Established', status: 'False', lastTransitionTime: t0, reason: 'Installing', message: 'the initial names have been accepted' },
      ],
    });
  });

  it('refuses names another CRD of the group accepted, with the last conflict\'s reason; Established NotAccepted', () => {
    const crd = created();
    const others = [owner('example.com', { plural: 'widgets', kind: 'Gizmo' }), owner('example.com', { plural: 'gizmos', kind: 'Widget' })];
    expect(namingStatus(crd, others, t0)).toEqual({
      acceptedNames: { plural: '', singular: 'widget', kind: '', listKind: 'WidgetList' },
      conditions: [
        { type: 'NamesAccepted', status: 'False', lastTransitionTime: t0, reason: 'KindConflict', message: '"Widget" is already in use' },
        { type: 'Established', status: 'False', lastTransitionTime: t0, reason: 'NotAccepted', message: 'not all names are accepted' },
      ],
    });
    expect(namingStatus(crd, [owner('example.com', { plural: 'widgets', kind: 'Gizmo' })], t0).conditions[0]).toMatchObject({
      reason: 'PluralConflict', message: '"widgets" is already in use',
    });
    expect(namingStatus(crd, [owner('example.com', { plural: 'gizmos', singular: 'widget', kind: 'Gizmo' })], t0).conditions[0]).toMatchObject({
      reason: 'SingularConflict', message: '"widget" is already in use',
    });
    expect(namingStatus(crd, [owner('example.com', { plural: 'gizmos', kind: 'Gizmo', listKind: 'WidgetList' })], t0).conditions[0]).toMatchObject({
      reason: 'ListKindConflict', message: '"WidgetList" is already in use',
    });
  });

  it('lists every short name in use, and ignores other groups', () => {
    const crd = created({ names: { plural: 'widgets', kind: 'Widget', shortNames: ['wd', 'w', 'wg'] } });
    const others = [owner('example.com', { plural: 'wd', kind: 'A' }), owner('example.com', { plural: 'b', shortNames: ['wg'], kind: 'B' })];
    const status = namingStatus(crd, others, t0);
    expect(status.conditions[0]).toEqual({
      type: 'NamesAccepted', status: 'False', lastTransitionTime: t0, reason: 'ShortNamesConflict', message: '["wd" is already in use, "wg" is already in use]',
    });
    expect(status.acceptedNames['shortNames']).toBeUndefined();
    expect(namingStatus(crd, [owner('other.com', { plural: 'wd', kind: 'Widget' })], t0).conditions[0]).toMatchObject({ status: 'True', reason: 'NoConflicts' });
  });

  it('counts the CRD\'s own accepted names as in use, as kube does (a singular may not take its own plural)', () => {
    const crd = storedCrd(widgetCrd());
    (specOf(crd)['names'] as Fields)['singular'] = 'widgets';
    expect(namingStatus(crd, [], t1).conditions[0]).toEqual({
      type: 'NamesAccepted', status: 'False', lastTransitionTime: t1, reason: 'SingularConflict', message: '"widgets" is already in use',
    });
  });

  it('keeps an Established CRD established, and its condition times when nothing changed', () => {
    const crd = storedCrd(widgetCrd());
    expect(namingStatus(crd, [], t1)).toEqual({ acceptedNames: specOf(crd)['names'], conditions: (crd['status'] as Fields)['conditions'] });
    (specOf(crd)['names'] as Fields)['shortNames'] = ['wd'];
    const status = namingStatus(crd, [], t1);
    expect(status.acceptedNames['shortNames']).toEqual(['wd']);
    expect(status.conditions).toEqual([
      { type: 'NamesAccepted', status: 'True', lastTransitionTime: t0, reason: 'NoConflicts', message: 'no conflicts found' },
      { type: 'Established', status: 'True', lastTransitionTime: t0, reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' },
    ]);
  });
});

describe('establishedCondition', () => {
  it('sets Established True once the names are accepted; keeps other conditions', () => {
    const naming = namingStatus(created(), [], t0);
    expect(establishedCondition(naming.conditions, t1)).toEqual([
      naming.conditions[0],
      { type: 'Established', status: 'True', lastTransitionTime: t1, reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' },
    ]);
    expect(establishedCondition({ conditions: naming.conditions }, t1)[1]).toMatchObject({ status: 'True' });
  });

  it('does nothing before NamesAccepted, nor once Established', () => {
    const refused = namingStatus(created(), [owner('example.com', { plural: 'widgets', kind: 'Gizmo' })], t0).conditions;
    expect(establishedCondition(refused, t1)).toEqual(refused);
    const established = (storedCrd(widgetCrd())['status'] as Fields)['conditions'];
    expect(establishedCondition(established, t1)).toEqual(established);
  });

  it('is False (InvalidCABundle) when the conversion webhook\'s caBundle is not a certificate', () => {
    const crd = created({ conversion: { strategy: 'Webhook', webhook: { clientConfig: { url: 'https://x.example.com', caBundle: Buffer.from('junk').toString('base64') }, conversionReviewVersions: ['v1'] } } });
    const naming = namingStatus(crd, [], t0);
    expect(establishedCondition(naming.conditions, t1, crd)[1]).toEqual({
      type: 'Established', status: 'False', lastTransitionTime: t0, reason: 'InvalidCABundle', message: 'The conversion webhook CABundle is invalid',
    });
  });
});

describe('deletion and the finalizer', () => {
  it('the delete path adds the finalizer, the deletion time and Terminating (InstanceDeletionPending)', () => {
    const crd = storedCrd(widgetCrd());
    markForDeletion(crd, t1);
    expect(crd.metadata.finalizers).toEqual([cleanupFinalizer]);
    expect(crd.metadata.deletionTimestamp).toBe(t1);
    expect(((crd['status'] as Fields)['conditions'] as Fields[]).at(-1)).toEqual({
      type: 'Terminating', status: 'True', lastTransitionTime: t1, reason: 'InstanceDeletionPending',
      message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon',
    });
    markForDeletion(crd, '2030-01-01T00:00:00Z');
    expect(crd.metadata.finalizers).toEqual([cleanupFinalizer]);
    expect(crd.metadata.deletionTimestamp).toBe(t1);
  });

  it('Terminating moves through kube\'s reasons; its time moves only with its status', () => {
    const pending = terminatingCondition({ conditions: [] }, t0, 'InstanceDeletionPending');
    const inProgress = terminatingCondition(pending, t1, 'InstanceDeletionInProgress');
    expect(inProgress).toEqual([
      { type: 'Terminating', status: 'True', lastTransitionTime: t0, reason: 'InstanceDeletionInProgress', message: 'CustomResource deletion is in progress' },
    ]);
    expect(terminatingCondition(inProgress, t1, 'InstanceDeletionCompleted')).toEqual([
      { type: 'Terminating', status: 'False', lastTransitionTime: t1, reason: 'InstanceDeletionCompleted', message: 'removed all instances' },
    ]);
    expect(terminatingCondition([], t1, 'NeverEstablished')[0]).toMatchObject({ status: 'False', message: 'resource was never established' });
    expect(terminatingCondition([], t1, 'OverlappingBuiltInResource')[0]).toMatchObject({ status: 'False', message: 'instances overlap with built-in resources in storage' });
    expect(terminatingCondition([], t1, 'InstanceDeletionFailed', 'could not issue all deletes: boom')[0]).toMatchObject({
      status: 'True', reason: 'InstanceDeletionFailed', message: 'could not issue all deletes: boom',
    });
  });

  it('deletes the objects of an Established CRD only, never those of a built-in resource', () => {
    expect(finalizerPlan(storedCrd(widgetCrd()))).toEqual({ action: 'delete' });
    expect(finalizerPlan(storedCrd(widgetCrd(), false))).toEqual({ action: 'skip', reason: 'NeverEstablished' });
    const builtIn = storedCrd(widgetCrd({ group: 'apiregistration.k8s.io', names: { plural: 'apiservices', singular: 'apiservice', kind: 'APIService', listKind: 'APIServiceList' } }));
    expect(finalizerPlan(builtIn)).toEqual({ action: 'skip', reason: 'OverlappingBuiltInResource' });
  });
});
