// A review webhook for tests: a real HTTPS server on 127.0.0.1 (port 0) with a certificate from
// a fresh test CA (deploy/pki.ts), recording every review it receives (body, Authorization
// header, the client certificate's CN) and answering as the test scripts it. It also writes
// kubeconfig files that point at it, so the code under test loads them like kube-apiserver would.
import { writeFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';
import { stringify } from 'yaml';
import { ensurePki } from '../../deploy/pki.ts';
import type { Pki } from '../../deploy/pki.ts';
import { makeTempDir } from './temp-dir.ts';
import type { TempDir } from './temp-dir.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface ReceivedReview {
  readonly body: Json;
  readonly path: string;
  readonly authorization: string | undefined;
  /** CN of the client certificate the caller presented, if any. */
  readonly clientCommonName: string | undefined;
}

/** What the webhook does with one review. */
export type ReviewAnswer =
  | { readonly json: unknown; readonly status?: number; readonly headers?: Readonly<Record<string, string>> }
  | { readonly text: string; readonly status?: number; readonly contentType?: string }
  | { readonly hang: true };

export type ReviewScript = (review: Json, index: number) => ReviewAnswer;

export interface KubeconfigOptions {
  /** How the CA is given: a relative file next to the kubeconfig (default), inline data, none. */
  readonly ca?: 'file' | 'data' | 'none';
  /** Use this PEM as the CA instead of the webhook's (e.g. another CA: a TLS failure). */
  readonly caPem?: string;
  readonly insecureSkipTlsVerify?: boolean;
  /** Present the test PKI's client certificate (kstore-admin) from files next to the kubeconfig. */
  readonly clientCertificate?: boolean;
  readonly token?: string;
  /** A token file (written next to the kubeconfig, referred to relatively). */
  readonly tokenFile?: string;
  readonly server?: string;
  readonly tlsServerName?: string;
  readonly fileName?: string;
}

export interface ReviewWebhook {
  readonly url: string;
  readonly dir: string;
  readonly pki: Pki;
  readonly received: ReceivedReview[];
  /** Replaces the script; the default answers 500 "no script". */
  answer(script: ReviewScript): void;
  writeKubeconfig(options?: KubeconfigOptions): Promise<string>;
  close(): Promise<void>;
}

/** A CA PEM other than any webhook's (a fresh test PKI). */
export async function unrelatedCaPem(): Promise<string> {
  const dir = await makeTempDir('kstore-other-ca-');
  try {
    return (await ensurePki(dir.path, [])).caCert;
  } finally {
    await dir.remove();
  }
}

function reply(response: ServerResponse, answer: ReviewAnswer): void {
  if ('hang' in answer) return;
  if ('json' in answer) {
    response.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...answer.headers }).end(JSON.stringify(answer.json));
    return;
  }
  response.writeHead(answer.status ?? 200, { 'content-type': answer.contentType ?? 'text/plain' }).end(answer.text);
}

export async function startReviewWebhook(): Promise<ReviewWebhook> {
  const dir: TempDir = await makeTempDir('kstore-review-webhook-');
  const pki = await ensurePki(dir.path, []);
  const received: ReceivedReview[] = [];
  let script: ReviewScript = () => ({ text: 'no script', status: 500 });
  const server = https.createServer({ key: pki.serverKey, cert: pki.serverCert, ca: pki.caCert, requestCert: true, rejectUnauthorized: false },
    (request: IncomingMessage, response: ServerResponse) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const socket = request.socket as TLSSocket;
        const certificate = socket.getPeerCertificate();
        const commonName = socket.authorized && certificate.subject !== undefined ? String(certificate.subject.CN) : undefined;
        let body: Json;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Json;
        } catch {
          body = {};
        }
        received.push({ body, path: request.url ?? '', authorization: request.headers.authorization, clientCommonName: commonName });
        reply(response, script(body, received.length - 1));
      });
    });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const url = `https://127.0.0.1:${port}/review`;
  let kubeconfigs = 0;

  async function writeKubeconfig(options: KubeconfigOptions = {}): Promise<string> {
    kubeconfigs += 1;
    const suffix = String(kubeconfigs);
    const caPem = options.caPem ?? pki.caCert;
    const cluster: Json = { server: options.server ?? url };
    if (options.ca === 'data') cluster['certificate-authority-data'] = Buffer.from(caPem).toString('base64');
    else if (options.ca !== 'none') {
      await writeFile(path.join(dir.path, `ca-${suffix}.crt`), caPem);
      cluster['certificate-authority'] = `ca-${suffix}.crt`;
    }
    if (options.insecureSkipTlsVerify === true) cluster['insecure-skip-tls-verify'] = true;
    if (options.tlsServerName !== undefined) cluster['tls-server-name'] = options.tlsServerName;
    const user: Json = {};
    if (options.clientCertificate === true) {
      user['client-certificate'] = 'pki/admin.crt';
      user['client-key'] = 'pki/admin.key';
    }
    if (options.token !== undefined) user['token'] = options.token;
    if (options.tokenFile !== undefined) {
      await writeFile(path.join(dir.path, `token-${suffix}`), options.tokenFile);
      user['tokenFile'] = `token-${suffix}`;
    }
    const config = {
      apiVersion: 'v1', kind: 'Config',
      clusters: [{ name: 'review-webhook', cluster }],
      users: [{ name: 'kube-apiserver', user }],
      contexts: [{ name: 'webhook', context: { cluster: 'review-webhook', user: 'kube-apiserver' } }],
      'current-context': 'webhook',
    };
    const file = path.join(dir.path, options.fileName ?? `kubeconfig-${suffix}.yaml`);
    await writeFile(file, stringify(config));
    return file;
  }

  return {
    url, dir: dir.path, pki, received,
    answer(next) {
      script = next;
    },
    writeKubeconfig,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await dir.remove();
    },
  };
}
