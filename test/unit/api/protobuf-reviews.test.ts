// Owns: the protobuf form of the review fields the hand-written proto tables left out and the
// generated descriptions carry: a user's extra values (a map of string lists, each list a
// wrapped ExtraValue message on the wire) and an access review's field and label selectors.
import { describe, expect, it } from 'vitest';
import { decodeProtobufObject, encodeProtobufObject } from '../../../api/codecs/protobuf.ts';

function roundTrip(object: Record<string, unknown>): Record<string, unknown> {
  return decodeProtobufObject(encodeProtobufObject(object));
}

describe('protobuf reviews', () => {
  it('SubjectAccessReview: extra as string lists, resource attributes with field and label selectors', () => {
    const review = {
      apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', metadata: { creationTimestamp: null },
      spec: {
        resourceAttributes: {
          namespace: 't', verb: 'list', resource: 'pods',
          fieldSelector: { rawSelector: 'spec.nodeName=n1', requirements: [{ key: 'spec.nodeName', operator: 'In', values: ['n1'] }] },
          labelSelector: { rawSelector: 'app=web', requirements: [{ key: 'app', operator: 'In', values: ['web'] }] },
        },
        user: 'jane', groups: ['dev'], extra: { 'example.com/scopes': ['read', 'write'], 'example.com/none': [] },
      },
      status: { allowed: true },
    };
    expect(roundTrip(review)).toEqual(review);
  });

  it('SelfSubjectReview: the user\'s extra values', () => {
    const review = {
      apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview', metadata: { creationTimestamp: null },
      status: { userInfo: { username: 'jane', groups: ['system:authenticated'], extra: { 'authentication.kubernetes.io/credential-id': ['X509SHA256=ab'] } } },
    };
    expect(roundTrip(review)).toEqual(review);
  });

  it('rejects an extra value that is not a list', () => {
    const review = { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { user: 'jane', extra: { scopes: 'read' } } };
    expect(() => encodeProtobufObject(review)).toThrow(/extra: expected a list/);
  });
});
