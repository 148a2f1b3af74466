// RequestInfo resolution, checked against the cases of kube-apiserver's requestinfo_test.go.
import { describe, expect, it } from 'vitest';
import { isWatchRequested, nameFromFieldSelector, resolveRequestInfo } from '../../../api/request-info.ts';

function info(method: string, path: string, query: Record<string, string | string[]> = {}) {
  const resolved = resolveRequestInfo(method, path, query);
  const { verb, apiPrefix, apiGroup, apiVersion, namespace, resource, subresource, name } = resolved;
  return { resource: resolved.isResourceRequest, verb, apiPrefix, apiGroup, apiVersion, namespace, resource_: resource, subresource, name };
}

describe('request info - resource requests', () => {
  it.each([
    ['GET', '/api/v1/namespaces', {}, { verb: 'list', namespace: '', resource_: 'namespaces', name: '' }],
    ['GET', '/api/v1/namespaces/other', {}, { verb: 'get', namespace: 'other', resource_: 'namespaces', name: 'other' }],
    ['GET', '/api/v1/namespaces/other/status', {}, { verb: 'get', namespace: 'other', resource_: 'namespaces', name: 'other', subresource: 'status' }],
    ['PUT', '/api/v1/namespaces/other/finalize', {}, { verb: 'update', namespace: 'other', resource_: 'namespaces', name: 'other', subresource: 'finalize' }],
    ['GET', '/api/v1/namespaces/other/configmaps', {}, { verb: 'list', namespace: 'other', resource_: 'configmaps', name: '' }],
    ['GET', '/api/v1/namespaces/other/configmaps/foo', {}, { verb: 'get', namespace: 'other', resource_: 'configmaps', name: 'foo' }],
    ['GET', '/api/v1/configmaps', {}, { verb: 'list', namespace: '', resource_: 'configmaps', name: '' }],
    ['POST', '/api/v1/namespaces/other/configmaps', {}, { verb: 'create', namespace: 'other', resource_: 'configmaps' }],
    ['PUT', '/api/v1/namespaces/other/configmaps/foo', {}, { verb: 'update', name: 'foo' }],
    ['PATCH', '/api/v1/namespaces/other/configmaps/foo', {}, { verb: 'patch', name: 'foo' }],
    ['DELETE', '/api/v1/namespaces/other/configmaps/foo', {}, { verb: 'delete', name: 'foo' }],
    ['DELETE', '/api/v1/namespaces/other/configmaps', {}, { verb: 'deletecollection', name: '' }],
    ['HEAD', '/api/v1/namespaces/other/configmaps/foo', {}, { verb: 'get', name: 'foo' }],
    ['GET', '/api/v1/namespaces/other/configmaps', { watch: '1' }, { verb: 'watch' }],
    ['GET', '/api/v1/namespaces/other/configmaps', { watch: 'true' }, { verb: 'watch' }],
    ['GET', '/api/v1/namespaces/other/configmaps', { watch: 'false' }, { verb: 'list' }],
    ['GET', '/api/v1/namespaces/other/configmaps', { watch: '0' }, { verb: 'list' }],
    ['GET', '/api/v1/watch/namespaces/other/configmaps', {}, { verb: 'watch', namespace: 'other', resource_: 'configmaps' }],
    ['GET', '/api/v1/watch/namespaces/other/configmaps/foo', {}, { verb: 'watch', resource_: 'configmaps', name: 'foo' }],
    ['GET', '/api/v1/watch/configmaps', {}, { verb: 'watch', namespace: '', resource_: 'configmaps' }],
    ['GET', '/api/v1/namespaces/other/configmaps', { fieldSelector: 'metadata.name=foo', watch: 'true' }, { verb: 'watch', name: 'foo' }],
    ['GET', '/api/v1/namespaces/other/configmaps', { fieldSelector: 'metadata.name==foo' }, { verb: 'list', name: 'foo' }],
    ['GET', '/api/v1/namespaces/other/configmaps', { fieldSelector: 'metadata.name!=foo' }, { verb: 'list', name: '' }],
    ['GET', '/apis/coordination.k8s.io/v1/namespaces/t/leases/l', {}, { apiPrefix: 'apis', apiGroup: 'coordination.k8s.io', apiVersion: 'v1', namespace: 't', resource_: 'leases', name: 'l' }],
    ['GET', '/apis/coordination.k8s.io/v1/leases', {}, { apiGroup: 'coordination.k8s.io', verb: 'list', resource_: 'leases' }],
    ['GET', '/api/v1/namespaces/other/pods/foo/log', {}, { resource_: 'pods', name: 'foo', subresource: 'log' }],
    ['POST', '/api/v1/namespaces/other/pods/foo/eviction', {}, { verb: 'create', subresource: 'eviction' }],
    ['GET', '/api/v1/proxy/namespaces/other/pods/foo/a/b', {}, { verb: 'proxy', name: 'foo', subresource: '' }],
  ] as const)('%s %s %j', (method, path, query, expected) => {
    const resolved = info(method, path, { ...query });
    expect(resolved.resource).toBe(true);
    expect(resolved).toMatchObject(expected);
  });

  it('core requests have prefix api, no group and version v1', () => {
    expect(info('GET', '/api/v1/namespaces/a/secrets')).toMatchObject({ apiPrefix: 'api', apiGroup: '', apiVersion: 'v1' });
  });

  it('keeps the parts from the resource on', () => {
    expect(resolveRequestInfo('GET', '/api/v1/namespaces/a/pods/p/log').parts).toEqual(['pods', 'p', 'log']);
  });
});

describe('request info - non-resource requests', () => {
  it.each([
    ['GET', '/'], ['GET', '/healthz'], ['GET', '/livez/ping'], ['GET', '/api'], ['GET', '/api/v1'], ['GET', '/apis'],
    ['GET', '/apis/coordination.k8s.io'], ['GET', '/apis/coordination.k8s.io/v1'], ['GET', '/openapi/v2'], ['POST', '/version'],
  ])('%s %s is not a resource request and uses the lowercase method as verb', (method, path) => {
    const resolved = resolveRequestInfo(method, path, {});
    expect(resolved.isResourceRequest).toBe(false);
    expect(resolved.verb).toBe(method.toLowerCase());
    expect(resolved.path).toBe(path);
  });
});

describe('request info - helpers', () => {
  it('treats a present watch as true unless 0 or false (any case)', () => {
    expect(isWatchRequested({ watch: '' })).toBe(true);
    expect(isWatchRequested({ watch: 'FALSE' })).toBe(false);
    expect(isWatchRequested({ watch: ['true', '0'] })).toBe(true);
    expect(isWatchRequested({})).toBe(false);
  });

  it('finds the exact name of a field selector among several terms', () => {
    expect(nameFromFieldSelector('metadata.namespace=a,metadata.name=b')).toBe('b');
    expect(nameFromFieldSelector('metadata.name=a\\,b')).toBe('a,b');
    expect(nameFromFieldSelector('metadata.name=a/b')).toBe('');
    expect(nameFromFieldSelector('status.phase=Active')).toBe('');
  });
});
