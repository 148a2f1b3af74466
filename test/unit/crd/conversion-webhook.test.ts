// Webhook conversion of custom resources: a CRD whose v1 and v2 differ in shape (v1 `spec.host`
// and `spec.port`, v2 `spec.address` "host:port") converts through a real HTTPS webhook on
// loopback, verified with the CRD's caBundle. Objects written in either version are stored in
// the storage version and read, listed and watched in both; the webhook sees kube's
// ConversionReview; a webhook that fails or answers wrongly makes the request a 500 with kube's
// "conversion webhook for … failed" and stores nothing; labels it changes are kept, other
// metadata is restored.
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ensurePki } from '../../../deploy/pki.ts';
import { startHarness } from '../api/harness.ts';
import type { Harness } from '../api/harness.ts';
import { makeTempDir } from '../../support/temp-dir.ts';
import type { TempDir } from '../../support/temp-dir.ts';
import { waitFor } from '../../support/wait-for.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const crds = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const v1Path = '/apis/conv.example.com/v1/namespaces/t/endpointsets';
const v2Path = '/apis/conv.example.com/v2/namespaces/t/endpointsets';

interface Webhook {
  readonly url: string;
  readonly caBundle: string;
  readonly reviews: Json[];
  /** What the webhook does: convert (default), fail, or answer with the wrong apiVersion. */
  mode: 'convert' | 'fail' | 'wrongVersion';
  close(): Promise<void>;
}

function convert(object: Json, desired: string): Json {
  const { spec = {}, ...rest } = object;
  if (desired.endsWith('/v2')) {
    const { host, port, ...others } = spec;
    return { ...rest, apiVersion: desired, spec: { ...others, address: `${host}:${port}` }, metadata: { ...object.metadata, labels: { ...object.metadata.labels, converted: 'v2' }, uid: 'tampered' } };
  }
  const { address = ':', ...others } = spec;
  const [host, port] = String(address).split(':');
  return { ...rest, apiVersion: desired, spec: { ...others, host, port: Number(port) } };
}

async function startWebhook(dir: TempDir): Promise<Webhook> {
  const pki = await ensurePki(dir.path, []);
  const reviews: Json[] = [];
  const server = https.createServer({ key: pki.serverKey, cert: pki.serverCert }, (request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Json;
      reviews.push(review);
      const { uid, desiredAPIVersion, objects } = review.request as { uid: string; desiredAPIVersion: string; objects: Json[] };
      const result = webhook.mode === 'fail'
        ? { uid, result: { status: 'Failure', message: 'the converter is down' } }
        : { uid, result: { status: 'Success' }, convertedObjects: objects.map((object) => (webhook.mode === 'wrongVersion' ? { ...object, apiVersion: 'conv.example.com/v9' } : convert(object, desiredAPIVersion))) };
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'ConversionReview', response: result }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const webhook: Webhook = {
    url: `https://127.0.0.1:${port}/convert`, caBundle: Buffer.from(pki.caCert).toString('base64'), reviews, mode: 'convert',
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
  return webhook;
}

function crd(webhook: Webhook): Json {
  const schema = (spec: Json) => ({ openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: spec } } } });
  return {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'endpointsets.conv.example.com' },
    spec: {
      group: 'conv.example.com', scope: 'Namespaced', names: { plural: 'endpointsets', singular: 'endpointset', kind: 'EndpointSet' },
      versions: [
        { name: 'v1', served: true, storage: true, schema: schema({ host: { type: 'string' }, port: { type: 'integer' } }) },
        { name: 'v2', served: true, storage: false, schema: schema({ address: { type: 'string' } }) },
      ],
      conversion: { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig: { url: webhook.url, caBundle: webhook.caBundle } } },
    },
  };
}

let harness: Harness;
let dir: TempDir;
let webhook: Webhook;

beforeEach(async () => {
  dir = await makeTempDir('kstore-conversion-');
  webhook = await startWebhook(dir);
  harness = await startHarness();
  const created = await harness.request('POST', crds, crd(webhook));
  expect(created.statusCode, created.body).toBe(201);
  await waitFor(async () => (await harness.request('GET', v2Path)).statusCode === 200, { timeoutMs: 10_000, description: 'endpointsets served' });
});
afterEach(async () => {
  await harness.close();
  await webhook.close();
  await dir.remove();
});

describe('webhook conversion', () => {
  it('stores objects written in v2 in v1 and reads each version through the webhook', async () => {
    const created = await harness.request('POST', v2Path, { apiVersion: 'conv.example.com/v2', kind: 'EndpointSet', metadata: { name: 'a', labels: { app: 'x' } }, spec: { address: 'db:5432' } });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().spec).toEqual({ address: 'db:5432' });
    expect(created.json().apiVersion).toBe('conv.example.com/v2');
    const stored = harness.backend.state.get({ group: 'conv.example.com', resource: 'endpointsets', namespace: 't', name: 'a' })!;
    expect(stored.apiVersion).toBe('conv.example.com/v1');
    expect(stored['spec']).toEqual({ host: 'db', port: 5432 });
    // The webhook may change labels; everything else in metadata (the uid it tampered with) is restored.
    const read = (await harness.request('GET', `${v2Path}/a`)).json();
    expect(read.metadata.uid).toBe(stored.metadata.uid);
    expect(read.metadata.labels).toEqual({ app: 'x', converted: 'v2' });
    expect((await harness.request('GET', `${v1Path}/a`)).json().spec).toEqual({ host: 'db', port: 5432 });
    const review = webhook.reviews.at(-1)!;
    expect(review).toMatchObject({ apiVersion: 'apiextensions.k8s.io/v1', kind: 'ConversionReview', request: { desiredAPIVersion: 'conv.example.com/v2' } });
    expect(typeof review.request.uid).toBe('string');
  });

  it('lists and watches in the served version', async () => {
    await harness.request('POST', v1Path, { apiVersion: 'conv.example.com/v1', kind: 'EndpointSet', metadata: { name: 'a' }, spec: { host: 'h1', port: 1 } });
    await harness.request('POST', v1Path, { apiVersion: 'conv.example.com/v1', kind: 'EndpointSet', metadata: { name: 'b' }, spec: { host: 'h2', port: 2 } });
    const list = (await harness.request('GET', v2Path)).json();
    expect(list.items.map((item: Json) => item.spec.address)).toEqual(['h1:1', 'h2:2']);
    const watch = await harness.request('GET', `${v2Path}?watch=1&timeoutSeconds=1`);
    const events = watch.body.trim().split('\n').map((line) => JSON.parse(line) as Json);
    expect(events.map((event) => [event.type, event.object.apiVersion, event.object.spec.address])).toEqual([
      ['ADDED', 'conv.example.com/v2', 'h1:1'], ['ADDED', 'conv.example.com/v2', 'h2:2'],
    ]);
  });

  it('a failing or wrong webhook is kube\'s 500 and nothing is stored', async () => {
    webhook.mode = 'fail';
    const failed = await harness.request('POST', v2Path, { apiVersion: 'conv.example.com/v2', kind: 'EndpointSet', metadata: { name: 'a' }, spec: { address: 'db:1' } });
    expect(failed.statusCode).toBe(500);
    expect(failed.json().message).toBe('Internal error occurred: conversion webhook for conv.example.com/v2, Kind=EndpointSet failed: the converter is down');
    webhook.mode = 'wrongVersion';
    const wrong = await harness.request('POST', v2Path, { apiVersion: 'conv.example.com/v2', kind: 'EndpointSet', metadata: { name: 'a' }, spec: { address: 'db:1' } });
    expect(wrong.statusCode).toBe(500);
    expect(wrong.json().message).toContain('invalid converted object at index 0: invalid apiVersion "conv.example.com/v9", expected "conv.example.com/v1"');
    expect(harness.backend.state.list({ group: 'conv.example.com', resource: 'endpointsets', namespace: '' }).items).toEqual([]);
  });
});
