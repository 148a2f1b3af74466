// csrcleaner with a fake clock and fake timers: a pass at start then hourly; deletes issued
// requests approved over 1h ago, denied/failed over 1h ago, pending over 24h, and issued ones whose
// certificate expired; keeps the rest.
import { afterEach, describe, expect, it } from 'vitest';
import { CsrCleaner, CsrSigningController } from '../../../actors/controllers/index.ts';
import type { Controller } from '../../../actors/controllers/index.ts';
import { at, csrKey, csrObject, makeCa, makeRequest, world } from './csr-fixtures.ts';

const started: Controller[] = [];
afterEach(async () => {
  for (const controller of started.splice(0)) await controller.stop();
});

const condition = (type: string, seconds: number) => ({ type, status: 'True', reason: 'R', message: 'm', lastUpdateTime: at(seconds), lastTransitionTime: at(seconds) });

describe('csrcleaner', () => {
  it('deletes finished and stale requests once past kube\'s deadlines, hourly, with a uid precondition', async () => {
    const ca = await makeCa();
    const w = world(ca);
    const request = await makeRequest('CN=alice');
    const who = { request, signerName: 'kubernetes.io/kube-apiserver-client', username: 'alice', groups: [], usages: ['client auth'] };
    w.put({ key: csrKey('pending'), object: csrObject('pending', who) });
    w.put({ key: csrKey('denied'), object: csrObject('denied', { ...who, conditions: [condition('Denied', 0)] }) });
    w.put({ key: csrKey('failed'), object: csrObject('failed', { ...who, conditions: [condition('Approved', 0), condition('Failed', 0)] }) });
    w.put({ key: csrKey('approved-unissued'), object: csrObject('approved-unissued', { ...who, signerName: 'example.com/other', conditions: [condition('Approved', 0)] }) });
    w.put({ key: csrKey('issued'), object: csrObject('issued', { ...who, expirationSeconds: 600, conditions: [condition('Approved', 0)] }) });
    // Issue the certificate the way the signer does (10 minutes' validity).
    const signing = new CsrSigningController(w.context, ca);
    signing.start();
    started.push(signing);
    await signing.idle();

    const cleaner = new CsrCleaner(w.context, w.fakeTimers);
    cleaner.start();
    started.push(cleaner);
    await cleaner.idle();
    expect(w.proposals.filter((command) => command.type === 'delete')).toEqual([]);
    expect(w.pending().map((timer) => timer.delayMs)).toEqual([3_600_000]);

    // 1h01m later: denied, failed and issued are past 1h; the pending one is not past 24h.
    w.setClock(3660);
    w.fire();
    await cleaner.idle();
    const deleted = w.proposals.filter((command) => command.type === 'delete');
    expect(deleted.map((command) => (command.type === 'delete' ? command.key.name : '')).sort()).toEqual(['denied', 'failed', 'issued']);
    expect(deleted[0]).toMatchObject({ preconditions: { uid: 'uid-denied' }, by: 'system:serviceaccount:kube-system:certificate-controller' });
    expect(w.csr('pending')).toBeDefined();
    expect(w.csr('approved-unissued')).toBeDefined();

    w.setClock(24 * 3600 + 1);
    w.fire();
    await cleaner.idle();
    expect(w.csr('pending')).toBeUndefined();
    expect(w.csr('approved-unissued')).toBeDefined();
    await cleaner.stop();
    expect(w.pending()).toEqual([]);
  });

  it('deletes an issued request whose certificate has expired even within the hour', async () => {
    const ca = await makeCa();
    const w = world(ca);
    w.put({ key: csrKey('short'), object: csrObject('short', { request: await makeRequest('CN=bob'), signerName: 'kubernetes.io/kube-apiserver-client', username: 'bob', groups: [], usages: ['client auth'], expirationSeconds: 600, conditions: [condition('Approved', 3000)] }) });
    const signing = new CsrSigningController(w.context, ca);
    signing.start();
    started.push(signing);
    await signing.idle();
    w.setClock(601);
    const cleaner = new CsrCleaner(w.context, w.fakeTimers);
    cleaner.start();
    started.push(cleaner);
    await cleaner.idle();
    expect(w.csr('short')).toBeUndefined();
  });
});
