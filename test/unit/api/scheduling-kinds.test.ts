// scheduling.k8s.io/v1 PriorityClasses and node.k8s.io/v1 RuntimeClasses through the API: the
// preemptionPolicy default and generation 1, the user value range and the reserved system-
// prefix, the immutable value and handler, kube's printers, and the start-up bootstrap that
// creates the two system classes once (deploy/priority-class-bootstrap.ts).
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StoreClient } from '../../../api/index.ts';
import { ensurePriorityClassBootstrap } from '../../../deploy/priority-class-bootstrap.ts';
import { createdObject, invalidCauses, startHarness } from './harness.ts';
import type { Harness } from './harness.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let harness: Harness;
const classes = '/apis/scheduling.k8s.io/v1/priorityclasses';
const runtimes = '/apis/node.k8s.io/v1/runtimeclasses';
const tableAccept = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' };

beforeEach(async () => {
  harness = await startHarness();
});
afterEach(async () => {
  await harness.close();
});

function priorityClass(name: string, extra: Json = {}): Json {
  return { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name }, value: 1000, ...extra };
}

const create = (url: string, object: Json): Promise<Json> => createdObject<Json>(harness, url, object);

const causesOf = (method: string, url: string, object: Json) => invalidCauses(harness, method, url, object);

describe('priorityclasses', () => {
  it('are created with preemptionPolicy PreemptLowerPriority and generation 1', async () => {
    const created = await create(classes, priorityClass('high'));
    expect(created).toMatchObject({ value: 1000, preemptionPolicy: 'PreemptLowerPriority', metadata: { generation: 1 } });
  });

  it('keep user values at or below 1000000000 and the system- prefix for the system classes', async () => {
    await create(classes, priorityClass('top', { value: 1_000_000_000 }));
    expect(await causesOf('POST', classes, priorityClass('too-high', { value: 1_000_000_001 })))
      .toEqual([{ field: 'value', message: 'Forbidden: maximum allowed value of a user defined priority is 1000000000' }]);
    expect(await causesOf('POST', classes, priorityClass('system-mine')))
      .toEqual([{ field: 'metadata.name', message: "Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-mine is not a known system priority class" }]);
    expect(await causesOf('POST', classes, priorityClass('system-node-critical', { value: 5 })))
      .toEqual([{ field: 'metadata.name', message: "Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: value of system-node-critical PriorityClass must be 2000001000" }]);
    expect(await causesOf('POST', classes, priorityClass('system-cluster-critical', { value: 2_000_000_000, globalDefault: true })))
      .toEqual([{ field: 'metadata.name', message: "Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: globalDefault of system-cluster-critical PriorityClass must be false" }]);
    expect(await causesOf('POST', classes, priorityClass('odd', { preemptionPolicy: 'Sometimes' })))
      .toEqual([{ field: 'preemptionPolicy', message: 'Unsupported value: "Sometimes": supported values: "PreemptLowerPriority", "Never"' }]);
  });

  it('keep value and preemptionPolicy immutable; description and globalDefault may change', async () => {
    const created = await create(classes, priorityClass('high'));
    expect(await causesOf('PUT', `${classes}/high`, { ...created, value: 2000, preemptionPolicy: 'Never' })).toEqual([
      { field: 'value', message: 'Forbidden: may not be changed in an update.' },
      { field: 'preemptionPolicy', message: 'Invalid value: "Never": field is immutable' },
    ]);
    const updated = await harness.request('PUT', `${classes}/high`, { ...created, description: 'important', globalDefault: true });
    expect(updated.statusCode, updated.body).toBe(200);
    expect(updated.json().metadata.generation).toBe(1);
  });

  it('print Value, Global-Default, Age and PreemptionPolicy', async () => {
    await create(classes, priorityClass('high', { globalDefault: true, preemptionPolicy: 'Never' }));
    const response = await harness.request('GET', classes, undefined, tableAccept);
    const table = response.json();
    expect(table.columnDefinitions.map((column: Json) => [column.name, column.type, column.priority])).toEqual([
      ['Name', 'string', 0], ['Value', 'integer', 0], ['Global-Default', 'boolean', 0], ['Age', 'string', 0], ['PreemptionPolicy', 'string', 0],
    ]);
    const cells = table.rows[0].cells;
    expect([cells[0], cells[1], cells[2], cells[4]]).toEqual(['high', 1000, true, 'Never']);
  });

  it('are bootstrapped at start: the two system classes, created once and left alone after', async () => {
    const client = new StoreClient(harness.backend);
    await ensurePriorityClassBootstrap(client);
    const list = (await harness.request('GET', classes)).json();
    expect(list.items.map((item: Json) => [item.metadata.name, item.value, item.globalDefault, item.preemptionPolicy])).toEqual([
      ['system-cluster-critical', 2_000_000_000, false, 'PreemptLowerPriority'],
      ['system-node-critical', 2_000_001_000, false, 'PreemptLowerPriority'],
    ]);
    const before = harness.backend.proposals;
    await ensurePriorityClassBootstrap(client);
    expect(harness.backend.proposals).toBe(before);
    // A deleted one comes back on the next round (a restart).
    expect((await harness.request('DELETE', `${classes}/system-node-critical`)).statusCode).toBe(200);
    await ensurePriorityClassBootstrap(client);
    expect((await harness.request('GET', `${classes}/system-node-critical`)).statusCode).toBe(200);
  });
});

describe('runtimeclasses', () => {
  const runtimeClass = (name: string, extra: Json = {}): Json => ({ apiVersion: 'node.k8s.io/v1', kind: 'RuntimeClass', metadata: { name }, handler: 'runc', ...extra });

  it('take a DNS label handler, keep it immutable, store the overhead canonical and print Handler', async () => {
    const created = await create(runtimes, runtimeClass('gvisor', { handler: 'runsc', overhead: { podFixed: { memory: '131072Ki', cpu: '0.25' } } }));
    expect(created.overhead).toEqual({ podFixed: { memory: '128Mi', cpu: '250m' } });
    expect(await causesOf('POST', runtimes, runtimeClass('bad', { handler: 'Not_A_Label' })))
      .toEqual([{ field: 'handler', message: expect.stringContaining('Invalid value: "Not_A_Label": a lowercase RFC 1123 label') }]);
    expect(await causesOf('PUT', `${runtimes}/gvisor`, { ...created, handler: 'kata' })).toEqual([{ field: 'handler', message: 'Invalid value: "kata": field is immutable' }]);
    const table = (await harness.request('GET', runtimes, undefined, tableAccept)).json();
    expect(table.columnDefinitions.map((column: Json) => column.name)).toEqual(['Name', 'Handler', 'Age']);
    expect(table.rows[0].cells.slice(0, 2)).toEqual(['gvisor', 'runsc']);
  });
});
