// The serviceaccount and root-ca-cert-publisher controllers over the API harness: every active
// namespace gets a `default` ServiceAccount and a `kube-root-ca.crt` ConfigMap; a deleted one
// comes back; the ConfigMap's data is put back when changed, the ServiceAccount is left as the
// user changed it; a terminating namespace gets nothing new.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { rootCaDescription, rootCaPublisher, serviceAccountController } from '../../../actors/controllers/index.ts';
import type { Controller, ControllerContext } from '../../../actors/controllers/index.ts';
import { formatTime } from '../../../api/index.ts';
import { waitFor } from '../../support/wait-for.ts';
import { startHarness } from './harness.ts';
import type { Harness } from './harness.ts';

const certificate = '-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----\n';

let harness: Harness;
let controllers: Controller[];

beforeEach(async () => {
  harness = await startHarness(['default', 'apps']);
  const context: ControllerContext = {
    state: harness.backend.state, propose: (command) => harness.backend.propose(command),
    now: () => formatTime(new Date()), log: () => undefined, rootCertificate: certificate,
  };
  controllers = [serviceAccountController(context), rootCaPublisher(context, certificate)];
  for (const controller of controllers) controller.start();
});
afterEach(async () => {
  for (const controller of controllers) await controller.stop();
  await harness.close();
});

const exists = async (path: string): Promise<boolean> => (await harness.request('GET', path)).statusCode === 200;

describe('objects kept in every namespace', () => {
  it('existing and new namespaces get the default ServiceAccount and kube-root-ca.crt', async () => {
    for (const namespace of ['default', 'apps']) {
      await waitFor(() => exists(`/api/v1/namespaces/${namespace}/serviceaccounts/default`), { timeoutMs: 5_000, description: `${namespace}/default SA` });
      await waitFor(() => exists(`/api/v1/namespaces/${namespace}/configmaps/kube-root-ca.crt`), { timeoutMs: 5_000, description: `${namespace} root CA` });
    }
    expect((await harness.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'later' } })).statusCode).toBe(201);
    await waitFor(() => exists('/api/v1/namespaces/later/serviceaccounts/default'), { timeoutMs: 5_000, description: 'later/default SA' });
    await waitFor(() => exists('/api/v1/namespaces/later/configmaps/kube-root-ca.crt'), { timeoutMs: 5_000, description: 'later root CA' });
    const account = (await harness.request('GET', '/api/v1/namespaces/later/serviceaccounts/default')).json();
    expect(account).toMatchObject({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: 'later' } });
    expect(account.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    const configMap = (await harness.request('GET', '/api/v1/namespaces/later/configmaps/kube-root-ca.crt')).json();
    expect(configMap).toMatchObject({ kind: 'ConfigMap', data: { 'ca.crt': certificate }, metadata: { annotations: { 'kubernetes.io/description': rootCaDescription } } });
  });

  it('a deleted one comes back; changed CA data is put back; a changed ServiceAccount is left alone', async () => {
    const accountPath = '/api/v1/namespaces/apps/serviceaccounts/default';
    const caPath = '/api/v1/namespaces/apps/configmaps/kube-root-ca.crt';
    await waitFor(() => exists(accountPath), { timeoutMs: 5_000, description: 'SA' });
    await waitFor(() => exists(caPath), { timeoutMs: 5_000, description: 'root CA' });
    const firstUid = (await harness.request('GET', accountPath)).json().metadata.uid;
    expect((await harness.request('DELETE', accountPath)).statusCode).toBe(200);
    await waitFor(async () => (await harness.request('GET', accountPath)).json().metadata?.uid !== firstUid && await exists(accountPath), { timeoutMs: 5_000, description: 'SA re-created' });

    const patched = await harness.request('PATCH', caPath, { data: { 'ca.crt': 'tampered' } }, { 'content-type': 'application/merge-patch+json' });
    expect(patched.statusCode).toBe(200);
    await waitFor(async () => (await harness.request('GET', caPath)).json().data['ca.crt'] === certificate, { timeoutMs: 5_000, description: 'CA data put back' });

    const labelled = await harness.request('PATCH', accountPath, { metadata: { labels: { mine: 'yes' } }, automountServiceAccountToken: false }, { 'content-type': 'application/merge-patch+json' });
    expect(labelled.statusCode).toBe(200);
    // A later change elsewhere in the namespace makes the controller look again; the account stays as the user left it.
    expect((await harness.request('DELETE', caPath)).statusCode).toBe(200);
    await waitFor(() => exists(caPath), { timeoutMs: 5_000, description: 'root CA re-created' });
    expect((await harness.request('GET', accountPath)).json()).toMatchObject({ automountServiceAccountToken: false, metadata: { labels: { mine: 'yes' } } });
  });

  it('a terminating namespace gets nothing new', async () => {
    const accountPath = '/api/v1/namespaces/apps/serviceaccounts/default';
    await waitFor(() => exists(accountPath), { timeoutMs: 5_000, description: 'SA' });
    // No namespace controller runs here, so the namespace stays Terminating with its content.
    expect((await harness.request('DELETE', '/api/v1/namespaces/apps')).statusCode).toBe(200);
    expect((await harness.request('DELETE', accountPath)).statusCode).toBe(200);
    // The controller handles namespaces one at a time in the order their changes came: once the
    // account deleted after this one, in an active namespace, is back, `apps` has had its turn.
    const defaultAccount = '/api/v1/namespaces/default/serviceaccounts/default';
    await waitFor(() => exists(defaultAccount), { timeoutMs: 5_000, description: 'default SA' });
    expect((await harness.request('DELETE', defaultAccount)).statusCode).toBe(200);
    await waitFor(() => exists(defaultAccount), { timeoutMs: 5_000, description: 'default SA re-created' });
    expect(await exists(accountPath)).toBe(false);
  });
});
