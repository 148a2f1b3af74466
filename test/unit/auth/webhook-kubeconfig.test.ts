// The webhook kubeconfig loader and client against a real HTTPS review webhook on loopback:
// relative and inline CA, client certificate, token and tokenFile, tls-server-name, the
// insecure flag; kube's load errors (clientcmd's validation wording); the client's failures
// (unknown CA, timeout, 5xx, Status bodies, garbage) and which are retried.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  decodeReview, defaultRetryBackoff, loadWebhookKubeconfig, webhookClient, webhookClientFromKubeconfig, withWebhookRetry, WebhookRequestError,
} from '../../../api/auth/webhook-kubeconfig.ts';
import type { WebhookClient } from '../../../api/auth/webhook-kubeconfig.ts';
import { startReviewWebhook, unrelatedCaPem } from '../../support/review-webhook.ts';
import type { ReviewWebhook } from '../../support/review-webhook.ts';
import { makeTempDir } from '../../support/temp-dir.ts';
import type { TempDir } from '../../support/temp-dir.ts';

let webhook: ReviewWebhook;
let dir: TempDir;
const clients: WebhookClient[] = [];

beforeEach(async () => {
  webhook = await startReviewWebhook();
  dir = await makeTempDir('kstore-kubeconfig-');
});

afterEach(async () => {
  for (const client of clients.splice(0)) client.close();
  await webhook.close();
  await dir.remove();
});

function track(client: WebhookClient): WebhookClient {
  clients.push(client);
  return client;
}

async function kubeconfigText(text: string, name = 'config.yaml'): Promise<string> {
  const file = path.join(dir.path, name);
  await writeFile(file, text);
  return file;
}

function loadError(file: string): string {
  try {
    loadWebhookKubeconfig(file);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('the kubeconfig loaded');
}

async function postError(client: WebhookClient, body: unknown = {}): Promise<WebhookRequestError> {
  try {
    await client.post(body);
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookRequestError);
    return error as WebhookRequestError;
  }
  throw new Error('the call succeeded');
}

const review = { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', status: { allowed: true } };

describe('calling the webhook', () => {
  it('posts JSON to the server URL with a relative CA file, the client certificate and a token', async () => {
    webhook.answer(() => ({ json: review }));
    const file = await webhook.writeKubeconfig({ clientCertificate: true, token: 'kubeconfig-token' });
    const client = track(webhookClientFromKubeconfig(file));
    await expect(client.post({ hello: 'webhook' })).resolves.toEqual(review);
    expect(webhook.received).toHaveLength(1);
    expect(webhook.received[0]).toMatchObject({ body: { hello: 'webhook' }, path: '/review', authorization: 'Bearer kubeconfig-token', clientCommonName: 'kstore-admin' });
  });

  it('reads certificate-authority-data and a relative tokenFile (trimmed)', async () => {
    webhook.answer(() => ({ json: review }));
    const file = await webhook.writeKubeconfig({ ca: 'data', tokenFile: 'token-from-file\n' });
    const config = loadWebhookKubeconfig(file);
    expect(config.tokenFile).toBe(path.join(webhook.dir, 'token-1'));
    const client = track(webhookClient(config));
    await client.post({});
    expect(webhook.received[0]?.authorization).toBe('Bearer token-from-file');
    expect(webhook.received[0]?.clientCommonName).toBeUndefined();
  });

  it('verifies the certificate against tls-server-name when given', async () => {
    webhook.answer(() => ({ json: review }));
    const good = track(webhookClientFromKubeconfig(await webhook.writeKubeconfig({ tlsServerName: 'localhost' })));
    await expect(good.post({})).resolves.toEqual(review);
    const bad = track(webhookClientFromKubeconfig(await webhook.writeKubeconfig({ tlsServerName: 'other.example' })));
    expect((await postError(bad)).message).toBe(`Post "${webhook.url}": tls: failed to verify certificate: x509: certificate is not valid for 127.0.0.1`);
  });

  it('fails TLS with a CA that did not sign the webhook certificate, unless insecure-skip-tls-verify', async () => {
    webhook.answer(() => ({ json: review }));
    const other = await unrelatedCaPem();
    const client = track(webhookClientFromKubeconfig(await webhook.writeKubeconfig({ caPem: other })));
    const error = await postError(client);
    expect(error.message).toBe(`Post "${webhook.url}": tls: failed to verify certificate: x509: certificate signed by unknown authority`);
    expect(error.retriable).toBe(false);
    expect(webhook.received).toHaveLength(0);
    const insecure = track(webhookClientFromKubeconfig(await webhook.writeKubeconfig({ ca: 'none', insecureSkipTlsVerify: true })));
    await expect(insecure.post({})).resolves.toEqual(review);
  });

  it('gives up after the timeout on a webhook that never answers', async () => {
    webhook.answer(() => ({ hang: true }));
    const client = track(webhookClientFromKubeconfig(await webhook.writeKubeconfig(), { timeoutMs: 150 }));
    const error = await postError(client);
    expect(error.message).toBe(`Post "${webhook.url}": context deadline exceeded`);
    expect(error.retriable).toBe(false);
  });

  it('words failures like client-go and marks the ones kube retries', async () => {
    const client = track(webhookClientFromKubeconfig(await webhook.writeKubeconfig()));
    webhook.answer(() => ({ text: 'boom\n', status: 500 }));
    let error = await postError(client);
    expect(error.message).toBe('an error on the server ("boom") has prevented the request from succeeding');
    expect([error.retriable, error.statusCode]).toEqual([true, 500]);

    webhook.answer(() => ({ json: { kind: 'Status', apiVersion: 'v1', status: 'Failure', message: 'no access for you', reason: 'Forbidden', code: 403 }, status: 403 }));
    error = await postError(client);
    expect([error.message, error.retriable]).toEqual(['no access for you', false]);

    webhook.answer(() => ({ json: { oops: true }, status: 429 }));
    error = await postError(client);
    expect([error.message, error.retriable]).toEqual(['the server has received too many requests and has asked us to try again later', true]);

    webhook.answer(() => ({ json: {}, status: 503, headers: { 'retry-after': '1' } }));
    expect((await postError(client)).retriable).toBe(true);
    webhook.answer(() => ({ json: {}, status: 503 }));
    expect((await postError(client)).retriable).toBe(false);

    webhook.answer(() => ({ text: 'not json at all', contentType: 'application/json' }));
    error = await postError(client);
    expect(error.message).toMatch(/^couldn't get version\/kind; json parse error: /);
    expect(error.retriable).toBe(false);

    webhook.answer(() => ({ text: '', contentType: 'application/json' }));
    expect((await postError(client)).message).toBe('0-length response with status code: 200 and content type: application/json');
  });
});

describe('retrying', () => {
  it('retries retriable failures with kube\'s backoff, at most five attempts', async () => {
    const delays: number[] = [];
    let calls = 0;
    const failing = async () => {
      calls += 1;
      throw new WebhookRequestError('an error on the server ("x") has prevented the request from succeeding', { retriable: true, statusCode: 500 });
    };
    await expect(withWebhookRetry(failing, defaultRetryBackoff, async (ms) => { delays.push(ms); })).rejects.toThrow('an error on the server');
    expect(calls).toBe(5);
    expect(delays).toHaveLength(4);
    const bases = [500, 750, 1125, 1687.5];
    delays.forEach((delay, index) => {
      expect(delay).toBeGreaterThanOrEqual(bases[index]!);
      expect(delay).toBeLessThanOrEqual(bases[index]! * 1.2);
    });
  });

  it('stops at the first failure that is not retriable, and returns a later success', async () => {
    let calls = 0;
    const notRetriable = async () => {
      calls += 1;
      throw new WebhookRequestError('no', { retriable: false });
    };
    await expect(withWebhookRetry(notRetriable, defaultRetryBackoff, async () => undefined)).rejects.toThrow('no');
    expect(calls).toBe(1);
    let attempts = 0;
    const flaky = async () => {
      attempts += 1;
      if (attempts < 3) throw new WebhookRequestError('reset', { retriable: true });
      return 'ok';
    };
    await expect(withWebhookRetry(flaky, defaultRetryBackoff, async () => undefined)).resolves.toBe('ok');
  });
});

describe('decoding a review', () => {
  it('defaults an absent apiVersion and kind, refuses other ones', () => {
    expect(decodeReview({ status: {} }, 'authentication.k8s.io/v1beta1', 'TokenReview')).toEqual({ status: {} });
    expect(() => decodeReview({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenReview' }, 'authentication.k8s.io/v1beta1', 'TokenReview'))
      .toThrow('converting (v1.TokenReview) to (v1beta1.TokenReview): unknown conversion');
    expect(() => decodeReview({ apiVersion: 'authentication.k8s.io/v1', kind: 'Other' }, 'authentication.k8s.io/v1', 'TokenReview'))
      .toThrow('no kind "Other" is registered for version "authentication.k8s.io/v1"');
  });
});

describe('loading a kubeconfig as kube-apiserver does', () => {
  const cluster = (fields: string) => `clusters:\n- name: c\n  cluster:\n${fields}\n`;
  const context = 'contexts:\n- name: x\n  context:\n    cluster: c\n    user: u\ncurrent-context: x\n';
  const user = (fields: string) => `users:\n- name: u\n  user:\n${fields}\n`;

  it('refuses a missing file', () => {
    const file = path.join(dir.path, 'missing.yaml');
    expect(loadError(file)).toBe(`stat ${file}: no such file or directory`);
  });

  it('refuses an empty config, or one whose context names no cluster, with kube\'s empty-config message', async () => {
    const empty = 'invalid configuration: no configuration has been provided, try setting KUBERNETES_MASTER environment variable';
    expect(loadError(await kubeconfigText(''))).toBe(empty);
    expect(loadError(await kubeconfigText(`${context}${user('    token: t')}`, 'no-cluster.yaml'))).toBe(empty);
  });

  it('lists every validation error of the current context', async () => {
    const file = await kubeconfigText(`${cluster('    server: https://127.0.0.1:1')}current-context: nope\n`);
    expect(loadError(file)).toBe('invalid configuration: [context was not found for specified context: nope, cluster has no server defined]');
    const noServer = await kubeconfigText(`${cluster('    insecure-skip-tls-verify: true')}${context}`, 'b.yaml');
    expect(loadError(noServer)).toBe('invalid configuration: no server found for cluster "c"');
    const missingCa = await kubeconfigText(`${cluster('    server: https://127.0.0.1:1\n    certificate-authority: nowhere/ca.crt')}${context}`, 'c.yaml');
    const caPath = path.join(dir.path, 'nowhere/ca.crt');
    expect(loadError(missingCa)).toBe(`invalid configuration: unable to read certificate-authority ${caPath} for c due to open ${caPath}: no such file or directory`);
  });

  it('checks the user\'s credentials', async () => {
    const server = cluster('    server: https://127.0.0.1:1');
    const noKey = await kubeconfigText(`${server}${context}${user('    client-certificate-data: Zm9v')}`);
    expect(loadError(noKey)).toBe('invalid configuration: client-key-data or client-key must be specified for u to use the clientCert authentication method.');
    const twoMethods = await kubeconfigText(`${server}${context}${user('    token: t\n    username: admin')}`, 'b.yaml');
    expect(loadError(twoMethods)).toBe('invalid configuration: more than one authentication method found for u; found [token basicAuth], only one is allowed');
  });

  it('refuses a CA together with insecure-skip-tls-verify, and CA bytes that hold no certificate', async () => {
    const both = await kubeconfigText(`${cluster(`    server: https://127.0.0.1:1\n    insecure-skip-tls-verify: true\n    certificate-authority-data: ${Buffer.from(webhook.pki.caCert).toString('base64')}`)}${context}`);
    expect(loadError(both)).toBe('specifying a root certificates file with the insecure flag is not allowed');
    const garbage = await kubeconfigText(`${cluster(`    server: https://127.0.0.1:1\n    certificate-authority-data: ${Buffer.from('not a pem').toString('base64')}`)}${context}`, 'b.yaml');
    expect(loadError(garbage)).toBe('unable to load root certificates: unable to parse bytes as PEM block');
  });

  it('refuses what does not decode as a v1 Config', async () => {
    const duplicate = await kubeconfigText(`${cluster('    server: https://a')}- name: c\n  cluster:\n    server: https://b\n${context}`);
    expect(loadError(duplicate)).toBe(`error loading config file "${duplicate}": error converting *[]NamedCluster into *map[string]*api.Cluster: duplicate name "c" in list`);
    const badType = await kubeconfigText(`${cluster('    server: 443')}${context}`, 'b.yaml');
    expect(loadError(badType)).toBe(`error loading config file "${badType}": json: cannot unmarshal number into Go struct field Cluster.clusters.cluster.server of type string`);
    const badBase64 = await kubeconfigText(`${cluster('    server: https://a\n    certificate-authority-data: "!!!!"')}${context}`, 'c.yaml');
    expect(loadError(badBase64)).toBe(`error loading config file "${badBase64}": illegal base64 data at input byte 0`);
  });

  it('resolves relative paths against the kubeconfig\'s directory, not the working directory', async () => {
    await mkdir(path.join(dir.path, 'sub', 'certs'), { recursive: true });
    await writeFile(path.join(dir.path, 'sub', 'certs', 'ca.crt'), webhook.pki.caCert);
    const file = path.join(dir.path, 'sub', 'config.yaml');
    await writeFile(file, `${cluster(`    server: ${webhook.url}\n    certificate-authority: certs/ca.crt`)}${context}`);
    const config = loadWebhookKubeconfig(file);
    expect(config.caPem).toBe(webhook.pki.caCert);
    webhook.answer(() => ({ json: review }));
    await expect(track(webhookClient(config)).post({})).resolves.toEqual(review);
  });
});
