// One stored set of events under core/v1 and events.k8s.io/v1, as kube-apiserver serves them:
// the conversion of pkg/apis/events/v1/conversion.go, every verb through either group on the
// same objects (same uid and resourceVersion, the right apiVersion/kind in every answer and
// watch event), kube's per-group validation (ValidateEventCreate/Update), the field label
// conversion of each group, and one printer for both.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../actors/index.ts';
import { coreToEventsV1, eventsV1ToCore } from '../../../api/registry/event-conversion.ts';
import { admin, startHarness } from './harness.ts';
import type { Harness } from './harness.ts';

const core = '/api/v1/namespaces/t/events';
const eventsV1 = '/apis/events.k8s.io/v1/namespaces/t/events';
const tableAccept = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io, application/json' };

/** An events.k8s.io/v1 Event as a new-style recorder (client-go's events package) writes it. */
function newEvent(name: string, extra: Record<string, unknown> = {}) {
  return {
    apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name },
    eventTime: '2026-11-23T10:00:00.000000Z', reportingController: 'kstore.io/test', reportingInstance: 'test-1',
    action: 'Binding', reason: 'Scheduled', type: 'Normal', regarding: { kind: 'Pod', name: 'web-0', namespace: 't', uid: 'u1' },
    note: 'assigned t/web-0 to node-1', ...extra,
  };
}

/** A core/v1 Event as the old recorder (kubelet) writes it. */
function oldEvent(name: string, extra: Record<string, unknown> = {}) {
  return {
    apiVersion: 'v1', kind: 'Event', metadata: { name },
    involvedObject: { kind: 'Pod', name: 'web-0', namespace: 't', fieldPath: 'spec.containers{web}' },
    reason: 'Pulled', message: 'Container image "nginx" already present on machine', source: { component: 'kubelet', host: 'node-1' },
    firstTimestamp: '2026-11-23T10:00:00Z', lastTimestamp: '2026-11-23T10:05:00Z', count: 3, type: 'Normal',
    eventTime: null, reportingComponent: '', reportingInstance: '', ...extra,
  };
}

describe('conversion (pkg/apis/events/v1/conversion.go)', () => {
  it('maps every field both ways and round-trips', () => {
    const full = {
      apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'e', namespace: 't', labels: { a: 'b' } },
      eventTime: '2026-11-23T10:00:00.000000Z', series: { count: 2, lastObservedTime: '2026-11-23T10:01:00.000000Z' },
      reportingController: 'c', reportingInstance: 'i', action: 'A', reason: 'R', regarding: { kind: 'Pod', name: 'p' },
      related: { kind: 'Node', name: 'n' }, note: 'N', type: 'Warning', deprecatedSource: { component: 'x', host: 'h' },
      deprecatedFirstTimestamp: '2026-11-23T09:00:00Z', deprecatedLastTimestamp: '2026-11-23T09:30:00Z', deprecatedCount: 4,
    } as unknown as KubeObject;
    const stored = eventsV1ToCore(full);
    expect(stored).toEqual({
      apiVersion: 'v1', kind: 'Event', metadata: { name: 'e', namespace: 't', labels: { a: 'b' } },
      involvedObject: { kind: 'Pod', name: 'p' }, reason: 'R', message: 'N', source: { component: 'x', host: 'h' },
      firstTimestamp: '2026-11-23T09:00:00Z', lastTimestamp: '2026-11-23T09:30:00Z', count: 4, type: 'Warning',
      eventTime: '2026-11-23T10:00:00.000000Z', series: { count: 2, lastObservedTime: '2026-11-23T10:01:00.000000Z' },
      action: 'A', related: { kind: 'Node', name: 'n' }, reportingComponent: 'c', reportingInstance: 'i',
    });
    expect(coreToEventsV1(stored)).toEqual(full);
    // Field order is each Go type's (what kubectl -o yaml sorts anyway, but JSON clients see).
    expect(Object.keys(coreToEventsV1(stored)).slice(3, 6)).toEqual(['eventTime', 'series', 'reportingController']);
    // The converted object is a copy.
    (stored['involvedObject'] as Record<string, unknown>)['name'] = 'changed';
    expect((full['regarding'] as Record<string, unknown>)['name']).toBe('p');
  });

  it('leaves out what either encoder leaves unset (null times, empty strings, zero counts) and keeps the subject', () => {
    const served = coreToEventsV1(oldEvent('e', { count: 0 }) as unknown as KubeObject);
    expect(served).not.toHaveProperty('eventTime');
    expect(served).not.toHaveProperty('reportingController');
    expect(served).not.toHaveProperty('deprecatedCount');
    expect(eventsV1ToCore({ apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: {} } as KubeObject)).toEqual({ apiVersion: 'v1', kind: 'Event', metadata: {}, involvedObject: {} });
    // Never throws on a malformed stored object: the wrong type reaches the decode check.
    expect(coreToEventsV1({ apiVersion: 'v1', kind: 'Event', metadata: {}, involvedObject: 'x', count: 'y' } as unknown as KubeObject)).toMatchObject({ regarding: 'x', deprecatedCount: 'y' });
  });
});

describe('one stored collection under both groups', () => {
  let harness: Harness;
  beforeEach(async () => {
    harness = await startHarness();
  });
  afterEach(async () => {
    await harness.close();
  });

  const post = async (url: string, body: unknown) => {
    const response = await harness.request('POST', url, body);
    expect(response.statusCode, response.body).toBe(201);
    return response.json();
  };
  const get = async (url: string) => {
    const response = await harness.request('GET', url);
    expect(response.statusCode, response.body).toBe(200);
    return response.json();
  };
  const names = (list: { items: { metadata: { name: string } }[] }) => list.items.map((item) => item.metadata.name);

  it('an events.k8s.io event is a core event with the same uid and resourceVersion, and back', async () => {
    const created = await post(eventsV1, newEvent('sched'));
    expect(created).toMatchObject({ apiVersion: 'events.k8s.io/v1', kind: 'Event', regarding: { name: 'web-0' }, note: 'assigned t/web-0 to node-1' });
    const asCore = await get(`${core}/sched`);
    expect(asCore).toMatchObject({
      apiVersion: 'v1', kind: 'Event', involvedObject: { kind: 'Pod', name: 'web-0', namespace: 't', uid: 'u1' },
      message: 'assigned t/web-0 to node-1', reportingComponent: 'kstore.io/test', reportingInstance: 'test-1', action: 'Binding',
      eventTime: '2026-11-23T10:00:00.000000Z', metadata: { uid: created.metadata.uid, resourceVersion: created.metadata.resourceVersion },
    });
    expect(asCore).not.toHaveProperty('regarding');
    expect(asCore).not.toHaveProperty('note');

    const kubelet = await post(core, oldEvent('pulled'));
    const asNew = await get(`${eventsV1}/pulled`);
    expect(asNew).toMatchObject({
      apiVersion: 'events.k8s.io/v1', kind: 'Event', regarding: { kind: 'Pod', name: 'web-0', fieldPath: 'spec.containers{web}' },
      note: 'Container image "nginx" already present on machine', deprecatedSource: { component: 'kubelet', host: 'node-1' },
      deprecatedFirstTimestamp: '2026-11-23T10:00:00Z', deprecatedLastTimestamp: '2026-11-23T10:05:00Z', deprecatedCount: 3,
      metadata: { uid: kubelet.metadata.uid, resourceVersion: kubelet.metadata.resourceVersion },
    });

    for (const url of [core, eventsV1]) {
      const list = await get(url);
      expect(names(list)).toEqual(['pulled', 'sched']);
      expect(list.kind).toBe('EventList');
      expect(list.apiVersion).toBe(url === core ? 'v1' : 'events.k8s.io/v1');
      expect(list.metadata.resourceVersion).toBe(String(harness.backend.currentRevision()));
    }
    expect(names(await get('/apis/events.k8s.io/v1/events'))).toEqual(['pulled', 'sched']);
    // One stored object each: the storage key is core's.
    expect(harness.backend.get({ group: '', resource: 'events', namespace: 't', name: 'sched' })).toMatchObject({ apiVersion: 'v1', message: 'assigned t/web-0 to node-1' });
    expect(harness.backend.list({ group: 'events.k8s.io', resource: 'events', namespace: '' }).items).toEqual([]);
  });

  it('updates, patches and deletes through the other group', async () => {
    await post(core, oldEvent('pulled'));
    // PUT through events.k8s.io of a core-written event: the strict create rules do not apply.
    const current = await get(`${eventsV1}/pulled`);
    const put = await harness.request('PUT', `${eventsV1}/pulled`, { ...current, metadata: { ...current.metadata, labels: { seen: 'yes' } } });
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json()).toMatchObject({ apiVersion: 'events.k8s.io/v1', metadata: { labels: { seen: 'yes' } }, deprecatedCount: 3 });
    expect((await get(`${core}/pulled`)).metadata.labels).toEqual({ seen: 'yes' });
    // ...but what an event says is immutable through events.k8s.io (ValidateEventUpdate).
    const immutable = await harness.request('PUT', `${eventsV1}/pulled`, { ...(put.json() as object), note: 'rewritten' });
    expect(immutable.statusCode).toBe(422);
    expect(immutable.json().details).toMatchObject({ group: 'events.k8s.io', kind: 'Event', causes: [{ field: 'message', reason: 'FieldValueInvalid', message: 'Invalid value: "rewritten": field is immutable' }] });
    // core/v1 keeps the legacy rules only: the old recorder bumps count and lastTimestamp.
    const bumped = await harness.request('PATCH', `${core}/pulled`, { count: 4, lastTimestamp: '2026-11-23T10:06:00Z' }, { 'content-type': 'application/strategic-merge-patch+json' });
    expect(bumped.statusCode, bumped.body).toBe(200);
    expect(bumped.json()).toMatchObject({ apiVersion: 'v1', count: 4 });

    // A merge patch through events.k8s.io answers in events.k8s.io form.
    await post(eventsV1, newEvent('sched'));
    const patched = await harness.request('PATCH', `${eventsV1}/sched`, { metadata: { annotations: { note: 'x' } } }, { 'content-type': 'application/merge-patch+json' });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(patched.json()).toMatchObject({ apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { annotations: { note: 'x' } }, note: 'assigned t/web-0 to node-1' });
    // A core PUT of an events.k8s.io event (legacy rules: its eventTime asks for the reporting fields).
    const asCore = await get(`${core}/sched`);
    const corePut = await harness.request('PUT', `${core}/sched`, { ...asCore, message: 'edited through core' });
    expect(corePut.statusCode, corePut.body).toBe(200);
    expect((await get(`${eventsV1}/sched`)).note).toBe('edited through core');
    const dropped = await harness.request('PUT', `${core}/sched`, { ...(corePut.json() as object), reportingComponent: '' });
    expect(dropped.statusCode).toBe(422);
    expect(dropped.json().details.causes).toEqual([expect.objectContaining({ field: 'reportingController', reason: 'FieldValueRequired' }), expect.objectContaining({ field: 'reportingController', reason: 'FieldValueInvalid' })]);

    // Delete through the other group: kube's Status names the request's group.
    const deleted = await harness.request('DELETE', `${eventsV1}/pulled`);
    expect(deleted.statusCode, deleted.body).toBe(200);
    expect(deleted.json()).toMatchObject({ kind: 'Status', status: 'Success', details: { name: 'pulled', group: 'events.k8s.io', kind: 'events' } });
    const gone = await harness.request('GET', `${core}/pulled`);
    expect(gone.statusCode).toBe(404);
    expect(gone.json().message).toBe('events "pulled" not found');
    expect((await harness.request('GET', `${eventsV1}/pulled`)).json().message).toBe('events.events.k8s.io "pulled" not found');
    // deletecollection answers the deleted items in the request's group.
    const collection = await harness.request('DELETE', core);
    expect(collection.statusCode).toBe(200);
    expect(collection.json()).toMatchObject({ apiVersion: 'v1', kind: 'EventList', items: [{ metadata: { name: 'sched' }, message: 'edited through core' }] });
    expect(names(await get(eventsV1))).toEqual([]);
  });

  it('dry runs, generateName and a PUT that creates answer in the request group', async () => {
    const dry = await harness.request('POST', `${eventsV1}?dryRun=All`, newEvent('dry'));
    expect(dry.statusCode).toBe(201);
    expect(dry.json()).toMatchObject({ apiVersion: 'events.k8s.io/v1', note: 'assigned t/web-0 to node-1' });
    expect((await harness.request('GET', `${core}/dry`)).statusCode).toBe(404);
    const generated = await post(eventsV1, { ...newEvent(''), metadata: { generateName: 'web-0.' } });
    expect((await get(`${core}/${generated.metadata.name}`)).message).toBe('assigned t/web-0 to node-1');
    const created = await harness.request('PUT', `${eventsV1}/by-put`, newEvent('by-put'));
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json().apiVersion).toBe('events.k8s.io/v1');
  });

  it('validates per request group as ValidateEventCreate does', async () => {
    const causes = async (url: string, body: unknown) => {
      const response = await harness.request('POST', url, body);
      expect(response.statusCode, response.body).toBe(422);
      return response.json().details.causes.map((cause: { field: string; message: string }) => `${cause.field}: ${cause.message}`);
    };
    // events.k8s.io: the deprecated fields must be unset, a series needs count ≥ 2 and a time, limits on lengths.
    expect(await causes(eventsV1, newEvent('e', {
      deprecatedCount: 2, deprecatedFirstTimestamp: '2026-11-23T10:00:00Z', deprecatedSource: { component: 'kubelet' },
      series: { count: 1 }, reason: 'R'.repeat(129), type: 'Info', action: '',
    }))).toEqual([
      'action: Required value',
      'reason: Invalid value: "": can have at most 128 characters',
      'series.count: Invalid value: "": should be at least 2',
      'series.lastObservedTime: Required value',
      'type: Invalid value: "": has invalid value: Info',
      'firstTimestamp: Invalid value: "": needs to be unset',
      'count: Invalid value: "": needs to be unset',
      'source: Invalid value: "": needs to be unset',
    ]);
    expect(await causes(eventsV1, newEvent('e', { reportingController: 'not a name', note: 'n'.repeat(1025) }))).toEqual([
      expect.stringMatching(/^reportingController: Invalid value: "not a name": name part must consist of/),
      'message: Invalid value: "": can have at most 1024 characters',
    ]);
    // The subject must be in the event's namespace (or the event in default / kube-system).
    expect(await causes(eventsV1, newEvent('e', { regarding: { kind: 'Node', name: 'node-1' } }))).toEqual(['involvedObject.namespace: Invalid value: "": does not match event.namespace']);
    expect((await harness.request('POST', '/apis/events.k8s.io/v1/namespaces/default/events', newEvent('node', { regarding: { kind: 'Node', name: 'node-1' } }))).statusCode).toBe(201);
    // core/v1: the legacy rules only; an old-style event is accepted without the new fields.
    expect(await causes(core, oldEvent('e', { involvedObject: { kind: 'Pod', name: 'p', namespace: 'other' } }))).toEqual(['involvedObject.namespace: Invalid value: "other": does not match event.namespace']);
    expect(await causes(core, oldEvent('e', { eventTime: '2026-11-23T10:00:00.000000Z' }))).toEqual([
      'reportingController: Required value', expect.stringMatching(/^reportingController: Invalid value: "": /),
      'reportingInstance: Required value', 'action: Required value',
    ]);
    await post(core, oldEvent('ok', { type: 'Custom' }));
    // A wrong type is still a decode error (400), before validation.
    expect((await harness.request('POST', eventsV1, newEvent('e', { deprecatedCount: 'many' }))).statusCode).toBe(400);
  });

  it('selects with each group’s field labels, converted as AddFieldLabelConversionsForEvent does', async () => {
    await post(eventsV1, newEvent('sched'));
    await post(core, oldEvent('pulled'));
    await post(core, oldEvent('other', { involvedObject: { kind: 'Service', name: 'svc', namespace: 't' }, reason: 'Synced', type: 'Warning', source: { component: 'endpoints' } }));
    const select = async (url: string, selector: string) => {
      const response = await harness.request('GET', `${url}?fieldSelector=${encodeURIComponent(selector)}`);
      expect(response.statusCode, `${selector}: ${response.body}`).toBe(200);
      return names(response.json());
    };
    expect(await select(core, 'involvedObject.kind=Pod')).toEqual(['pulled', 'sched']);
    expect(await select(eventsV1, 'regarding.kind=Pod')).toEqual(['pulled', 'sched']);
    expect(await select(core, 'involvedObject.fieldPath=spec.containers{web}')).toEqual(['pulled']);
    expect(await select(eventsV1, 'regarding.name=svc,type=Warning,reason=Synced')).toEqual(['other']);
    // source is source.component, else the reporting controller (core's ToSelectableFields).
    expect(await select(core, 'source=kstore.io/test')).toEqual(['sched']);
    expect(await select(eventsV1, 'source=kubelet')).toEqual(['pulled']);
    expect(await select(core, 'reportingComponent=kstore.io/test')).toEqual(['sched']);
    expect(await select(eventsV1, 'reportingController=kstore.io/test')).toEqual(['sched']);
    expect(await select(eventsV1, 'metadata.name=pulled')).toEqual(['pulled']);
    for (const [url, label] of [[eventsV1, 'involvedObject.kind'], [eventsV1, 'reportingComponent'], [core, 'regarding.kind'], [core, 'reportingController'], [core, 'note']] as const) {
      const response = await harness.request('GET', `${url}?fieldSelector=${label}%3Dx`);
      expect(response.statusCode, `${url} ${label}`).toBe(400);
    }
  });

  it('prints both groups with kube’s event printer: the same cells for the same object', async () => {
    await post(eventsV1, newEvent('sched', { series: { count: 5, lastObservedTime: '2026-11-23T10:02:00.000000Z' } }));
    await post(core, oldEvent('pulled'));
    const tables = await Promise.all([core, eventsV1].map(async (url) => (await harness.request('GET', url, undefined, tableAccept)).json()));
    const [coreTable, eventsTable] = tables;
    expect(eventsTable.columnDefinitions).toEqual(coreTable.columnDefinitions);
    expect(eventsTable.rows.map((row: { cells: unknown[] }) => row.cells)).toEqual(coreTable.rows.map((row: { cells: unknown[] }) => row.cells));
    const byName = Object.fromEntries(coreTable.rows.map((row: { cells: unknown[] }) => [row.cells[9], row.cells]));
    // Last Seen, Type, Reason, Object, Subobject, Source, Message, First Seen, Count, Name.
    expect(byName['sched'].slice(1, 7)).toEqual(['Normal', 'Scheduled', 'pod/web-0', '', 'kstore.io/test, test-1', 'assigned t/web-0 to node-1']);
    expect(byName['sched'][8]).toBe(5);
    expect(byName['pulled'].slice(1, 7)).toEqual(['Normal', 'Pulled', 'pod/web-0', 'spec.containers{web}', 'kubelet, node-1', 'Container image "nginx" already present on machine']);
    expect(byName['pulled'][8]).toBe(3);
    expect(eventsTable.rows[0].object).toMatchObject({ kind: 'PartialObjectMetadata' });
  });

  it('a corrupt stored event fails reads under both groups with the storage error of its one key', async () => {
    const key = { group: '', resource: 'events', namespace: 't', name: 'bad' };
    const object = { ...oldEvent('bad'), metadata: { name: 'bad', namespace: 't' }, count: 'many' };
    expect((await harness.backend.propose({ type: 'create', key, object: object as never, at: '2026-11-23T10:00:00Z' })).type).toBe('stored');
    for (const url of [`${core}/bad`, `${eventsV1}/bad`, eventsV1]) {
      const response = await harness.request('GET', url);
      expect(response.statusCode, url).toBe(500);
      expect(response.json().message).toContain('StorageError: corrupt object, Code: 7, Key: /registry/events/t/bad,');
    }
  });

  it('discovery gives both resources the storage version hash of core/v1 Event', async () => {
    const coreList = await get('/api/v1');
    const eventsList = await get('/apis/events.k8s.io/v1');
    const hash = (list: { resources: { name: string; storageVersionHash: string }[] }) => list.resources.find((resource) => resource.name === 'events')!.storageVersionHash;
    expect(hash(eventsList)).toBe(hash(coreList));
    expect(hash(coreList)).toBe('r2yiGXH7wu8=');
  });
});

describe('watch across groups', () => {
  let harness: Harness;
  let baseUrl: string;
  beforeEach(async () => {
    harness = await startHarness();
    baseUrl = await harness.app.listen({ port: 0, host: '127.0.0.1' });
  });
  afterEach(async () => {
    // A watch the client aborted can leave its keep-alive socket open on the server, and close
    // would wait out the shutdown grace (5 s) for it; these sockets carry nothing more.
    harness.app.server.closeAllConnections();
    await harness.close();
  });

  interface WatchEvent {
    type: string;
    object: { apiVersion?: string; kind?: string; metadata: { name?: string; resourceVersion?: string }; note?: string; message?: string; regarding?: unknown; involvedObject?: unknown };
  }

  async function openWatch(path: string) {
    const controller = new AbortController();
    const response = await fetch(`${baseUrl}${path}`, { headers: admin, signal: controller.signal });
    expect(response.status).toBe(200);
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    return {
      async next(): Promise<WatchEvent> {
        while (!buffer.includes('\n')) {
          const { value, done } = await reader.read();
          if (done) throw new Error(`watch ended; buffered: ${buffer}`);
          buffer += value;
        }
        const newline = buffer.indexOf('\n');
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        return JSON.parse(line) as WatchEvent;
      },
      close: () => controller.abort(),
    };
  }

  it('a watch under one group sees writes through the other, converted to its own group', async () => {
    const newWatch = await openWatch(`${eventsV1}?watch=1`);
    const coreWatch = await openWatch(`${core}?watch=1&fieldSelector=${encodeURIComponent('involvedObject.name=web-0')}`);
    const created = (await harness.request('POST', core, oldEvent('pulled'))).json();
    const seen = await newWatch.next();
    expect(seen).toMatchObject({ type: 'ADDED', object: { apiVersion: 'events.k8s.io/v1', kind: 'Event', metadata: { name: 'pulled', resourceVersion: created.metadata.resourceVersion }, note: created.message } });
    expect(seen.object).not.toHaveProperty('involvedObject');
    expect(await coreWatch.next()).toMatchObject({ type: 'ADDED', object: { apiVersion: 'v1', kind: 'Event', metadata: { name: 'pulled' } } });

    const sched = (await harness.request('POST', eventsV1, newEvent('sched'))).json();
    expect(await newWatch.next()).toMatchObject({ type: 'ADDED', object: { apiVersion: 'events.k8s.io/v1', metadata: { name: 'sched', resourceVersion: sched.metadata.resourceVersion } } });
    const coreSeen = await coreWatch.next();
    expect(coreSeen).toMatchObject({ type: 'ADDED', object: { apiVersion: 'v1', kind: 'Event', metadata: { name: 'sched' }, message: sched.note, involvedObject: { name: 'web-0' } } });

    // A selector transition through the other group's write: the core watcher sees DELETED.
    const patched = await harness.request('PATCH', `${eventsV1}/sched`, { metadata: { labels: { a: 'b' } } }, { 'content-type': 'application/merge-patch+json' });
    expect(patched.statusCode, patched.body).toBe(200);
    expect(await newWatch.next()).toMatchObject({ type: 'MODIFIED', object: { apiVersion: 'events.k8s.io/v1', metadata: { name: 'sched', labels: { a: 'b' } } } });
    expect(await coreWatch.next()).toMatchObject({ type: 'MODIFIED', object: { apiVersion: 'v1', metadata: { name: 'sched', labels: { a: 'b' } } } });
    await harness.request('DELETE', `${core}/sched`);
    expect(await newWatch.next()).toMatchObject({ type: 'DELETED', object: { apiVersion: 'events.k8s.io/v1', metadata: { name: 'sched' } } });
    expect(await coreWatch.next()).toMatchObject({ type: 'DELETED', object: { apiVersion: 'v1', metadata: { name: 'sched' } } });
    newWatch.close();
    coreWatch.close();

    // Resuming from a resourceVersion one group handed out works under the other group.
    const resumed = await openWatch(`${eventsV1}?watch=1&resourceVersion=${created.metadata.resourceVersion}`);
    expect(await resumed.next()).toMatchObject({ type: 'ADDED', object: { apiVersion: 'events.k8s.io/v1', metadata: { name: 'sched' } } });
    resumed.close();
    // The initial list of a watch is converted too, and its bookmark is the group's kind.
    const initial = await openWatch(`${eventsV1}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`);
    expect(await initial.next()).toMatchObject({ type: 'ADDED', object: { apiVersion: 'events.k8s.io/v1', metadata: { name: 'pulled' } } });
    expect(await initial.next()).toMatchObject({ type: 'BOOKMARK', object: { apiVersion: 'events.k8s.io/v1', kind: 'Event' } });
    initial.close();
  });
});
