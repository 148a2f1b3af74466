// Protobuf against client-go's own bytes: for every served kind (and every other kind kstore
// speaks protobuf for that has a fixture), the Kubernetes 1.33 round-trip data
// (./fixtures/client-go-1.33, see its README) decodes to exactly Go's JSON and the JSON encodes
// to exactly Go's bytes. A served kind without a fixture fails: every kind is covered.
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decodeProtobufObject, encodeProtobufObject, protobufKinds } from '../../../api/codecs/protobuf.ts';
import { servedKinds } from '../../../api/registry/kinds.ts';

const fixtures = new URL('./fixtures/client-go-1.33/', import.meta.url);

function fixtureName(apiVersion: string, kind: string): string {
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') as [string, string] : ['core', apiVersion];
  return `${group}.${version}.${kind}`;
}

function read(name: string): { readonly bytes: Buffer; readonly json: Record<string, unknown> } {
  return {
    bytes: readFileSync(new URL(`${name}.pb`, fixtures)),
    json: JSON.parse(readFileSync(new URL(`${name}.json`, fixtures), 'utf8')) as Record<string, unknown>,
  };
}

/** Served kinds whose module publishes no round-trip data (checked below another way). */
const withoutRoundTripData = ['apiregistration.k8s.io.v1.APIService'];
/** Fixtures whose Go bytes hold zero fields their JSON cannot show (see the test below). */
const zeroFieldsOnlyInGoBytes = new Set(['apiextensions.k8s.io.v1.CustomResourceDefinition']);

const servedNames = [...new Set(servedKinds.map((kind) => fixtureName(kind.group === '' ? kind.version : `${kind.group}/${kind.version}`, kind.kind)))];
// Kinds kstore speaks protobuf for beyond the served ones (subresource and option kinds), where a fixture exists.
const otherNames = protobufKinds()
  .filter((pair) => !pair.endsWith('List'))
  .map((pair) => fixtureName(pair.slice(0, pair.lastIndexOf('/')), pair.slice(pair.lastIndexOf('/') + 1)))
  .filter((name) => !servedNames.includes(name) && existsSync(new URL(`${name}.pb`, fixtures)));

describe('protobuf against client-go 1.33 bytes', () => {
  it('has a fixture for every served kind', () => {
    const missing = servedNames.filter((name) => !existsSync(new URL(`${name}.pb`, fixtures)));
    expect(missing).toEqual(withoutRoundTripData);
  });

  // kube-aggregator publishes no round-trip data: its APIService is checked by a rich round trip.
  it('apiregistration.k8s.io.v1.APIService: every field survives JSON -> protobuf -> JSON', () => {
    const service = {
      apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService',
      metadata: { name: 'v1beta1.metrics.k8s.io', uid: 'u-1', resourceVersion: '7', creationTimestamp: '2026-11-25T08:00:00Z', labels: { a: 'b' } },
      spec: {
        service: { namespace: 'kube-system', name: 'metrics-server', port: 443 }, group: 'metrics.k8s.io', version: 'v1beta1',
        insecureSkipTLSVerify: true, caBundle: Buffer.from('ca').toString('base64'), groupPriorityMinimum: 100, versionPriority: 100,
      },
      status: { conditions: [{ type: 'Available', status: 'False', lastTransitionTime: '2026-11-25T08:01:00Z', reason: 'MissingEndpoints', message: 'no endpoints' }] },
    };
    expect(decodeProtobufObject(Buffer.from(encodeProtobufObject(service)))).toEqual(service);
  });

  it('covers the subresource and option kinds too', () => {
    expect(otherNames).toEqual(expect.arrayContaining(['policy.v1.Eviction', 'autoscaling.v1.Scale', 'core.v1.DeleteOptions']));
  });

  for (const name of [...servedNames, ...otherNames]) {
    it(`${name}: decodes to Go's JSON and encodes to Go's bytes`, () => {
      if (!existsSync(new URL(`${name}.pb`, fixtures)) || zeroFieldsOnlyInGoBytes.has(name)) return; // reported above / checked below
      const { bytes, json } = read(name);
      expect(decodeProtobufObject(bytes)).toEqual(json);
      const encoded = Buffer.from(encodeProtobufObject(json));
      expect(encoded.toString('hex')).toBe(bytes.toString('hex'));
    });
  }

  // The CRD's fixture nests empty JSONSchemaProps (in items, properties, definitions, ...): Go
  // writes their non-pointer scalars as zeros on the wire, while their JSON is `{}`, so the
  // bytes cannot be rebuilt from the JSON alone. Go's bytes decode to Go's JSON, and the JSON
  // survives kstore's encode and decode whole.
  for (const name of zeroFieldsOnlyInGoBytes) {
    it(`${name}: decodes to Go's JSON, and its JSON survives encode and decode`, () => {
      const { bytes, json } = read(name);
      expect(decodeProtobufObject(bytes)).toEqual(json);
      expect(decodeProtobufObject(Buffer.from(encodeProtobufObject(json)))).toEqual(json);
    });
  }
});
