// Owns: the kubeconfig file a webhook is configured with (--authentication-token-webhook-config-file,
// --authorization-webhook-config-file, an AuthorizationConfiguration's connectionInfo.kubeConfigFile)
// and the HTTP client that calls the webhook, as kube's webhook.LoadKubeconfig (client-go's
// clientcmd loading rules with an explicit path, then rest.Config and its transport) does:
// - loading: the file must exist ("stat <file>: …"); YAML is decoded as a v1 Config (absent
//   apiVersion/kind default to v1 Config); lists with a repeated name are refused; the current
//   context's cluster and user are used; relative certificate-authority, client-certificate,
//   client-key and tokenFile paths are relative to the kubeconfig's directory. A config without a
//   usable cluster is kube's "invalid configuration: no configuration has been provided, …";
//   other problems are clientcmd's validation errors ("invalid configuration: …", several as
//   "[a, b]"), then the transport's (CA with insecure-skip-tls-verify, unparsable PEM).
// - calling: one POST of a JSON body to the cluster's server URL (its path as is), over a
//   keep-alive agent with the CA, client certificate, tls-server-name and insecure flag, with a
//   bearer token (tokenFile re-read each minute, as client-go does) or basic auth, and an absolute
//   timeout (kube's default 30 s, the request and the response body). Failures are
//   WebhookRequestErrors worded like client-go's (`Post "<url>": …`, the generic server
//   response messages, a Status body's message) and marked retriable as kube's
//   DefaultShouldRetry marks them (connection reset, 5xx InternalError, 504, 429, Retry-After).
// - retrying: kube's webhook backoff (500 ms initial, factor 1.5, jitter 0.2, 5 attempts).
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { caBundleProblem, decodeBase64 } from '../crd/definition-webhook.ts';

/** kube's defaultRequestTimeout for every webhook request (util/webhook/webhook.go). */
export const defaultWebhookTimeoutMs = 30_000;
/** client-go's cached file token source re-reads tokenFile this often. */
const tokenFileRefreshMs = 60_000;
/** client-go caps the text of an unstructured error response (rest/request.go). */
const maxUnstructuredResponseTextBytes = 2048;

/** A loaded webhook kubeconfig: where to call and how to authenticate both ends. */
export interface WebhookKubeconfig {
  /** The kubeconfig file it was read from (absolute). */
  readonly file: string;
  readonly server: URL;
  /** PEM the server's certificate is verified with; the system roots when absent. */
  readonly caPem?: string;
  readonly insecureSkipTlsVerify: boolean;
  readonly tlsServerName?: string;
  readonly clientCertificatePem?: string;
  readonly clientKeyPem?: string;
  readonly token?: string;
  /** Absolute; when set, the bearer token is read from it (and re-read each minute). */
  readonly tokenFile?: string;
  readonly basicAuth?: { readonly username: string; readonly password: string };
}

/** A kubeconfig that kube-apiserver would refuse to start with; the message is kube's. */
export class KubeconfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KubeconfigError';
  }
}

// ---------------------------------------------------------------------------------------------
// Decoding the v1 Config (client-go's clientcmd/api/v1 types, decoded as JSON after YAML).

type Json = Record<string, unknown>;

function goErrnoText(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ENOENT': return 'no such file or directory';
    case 'EACCES': return 'permission denied';
    case 'ENOTDIR': return 'not a directory';
    case 'EISDIR': return 'is a directory';
    default: return error instanceof Error ? error.message : String(error);
  }
}

function jsonTypeOf(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'object') return 'object';
  return typeof value === 'boolean' ? 'bool' : typeof value;
}

/** Reads one Go struct's fields, failing like encoding/json on a field of the wrong type. */
class StructReader {
  constructor(private readonly fields: Json, private readonly structName: string, private readonly at: string) {}

  #mismatch(name: string, value: unknown, goType: string): KubeconfigError {
    return new KubeconfigError(`json: cannot unmarshal ${jsonTypeOf(value)} into Go struct field ${this.structName}.${this.at}${name} of type ${goType}`);
  }

  string(name: string): string {
    const value = this.fields[name];
    if (value === undefined || value === null) return '';
    if (typeof value !== 'string') throw this.#mismatch(name, value, 'string');
    return value;
  }

  bool(name: string): boolean {
    const value = this.fields[name];
    if (value === undefined || value === null) return false;
    if (typeof value !== 'boolean') throw this.#mismatch(name, value, 'bool');
    return value;
  }

  bytes(name: string): Uint8Array | undefined {
    const value = this.fields[name];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string') throw this.#mismatch(name, value, '[]uint8');
    const decoded = decodeBase64(value);
    if (decoded === undefined) throw new KubeconfigError(`illegal base64 data at input byte ${firstBadBase64Byte(value)}`);
    return decoded.length === 0 ? undefined : decoded;
  }

  present(name: string): boolean {
    const value = this.fields[name];
    return value !== undefined && value !== null;
  }

  nested(name: string, goType: string, struct: string): StructReader {
    const value = this.fields[name];
    if (value === undefined || value === null) return new StructReader({}, struct, `${this.at}${name}.`);
    if (typeof value !== 'object' || Array.isArray(value)) throw this.#mismatch(name, value, goType);
    return new StructReader(value as Json, struct, `${this.at}${name}.`);
  }

  list(name: string, goType: string, itemStruct: string): StructReader[] {
    const value = this.fields[name];
    if (value === undefined || value === null) return [];
    if (!Array.isArray(value)) throw this.#mismatch(name, value, goType);
    return value.map((item: unknown) => {
      if (item === null) return new StructReader({}, itemStruct, `${this.at}${name}.`);
      if (typeof item !== 'object' || Array.isArray(item)) throw this.#mismatch(name, item, goType.replace(/^\[\]/, ''));
      return new StructReader(item as Json, itemStruct, `${this.at}${name}.`);
    });
  }
}

function firstBadBase64Byte(text: string): number {
  const clean = text.replace(/[\r\n]/g, '');
  const bad = clean.search(/[^A-Za-z0-9+/=]/);
  if (bad >= 0) return bad;
  const padding = clean.indexOf('=');
  if (padding >= 0 && padding < clean.length - 2) return padding;
  return clean.length - (clean.length % 4);
}

interface RawCluster {
  readonly server: string;
  readonly certificateAuthority: string;
  readonly certificateAuthorityData: Uint8Array | undefined;
  readonly insecureSkipTlsVerify: boolean;
  readonly tlsServerName: string;
}

interface RawAuthInfo {
  readonly clientCertificate: string;
  readonly clientCertificateData: Uint8Array | undefined;
  readonly clientKey: string;
  readonly clientKeyData: Uint8Array | undefined;
  readonly token: string;
  readonly tokenFile: string;
  readonly username: string;
  readonly password: string;
  readonly exec: boolean;
  readonly authProvider: boolean;
}

interface RawContext {
  readonly cluster: string;
  readonly user: string;
}

interface RawConfig {
  readonly currentContext: string;
  readonly clusters: ReadonlyMap<string, RawCluster>;
  readonly users: ReadonlyMap<string, RawAuthInfo>;
  readonly contexts: ReadonlyMap<string, RawContext>;
}

function named<T>(entries: StructReader[], field: string, read: (reader: StructReader) => T, from: string, to: string): Map<string, T> {
  const result = new Map<string, T>();
  for (const entry of entries) {
    const name = entry.string('name');
    if (result.has(name)) throw new KubeconfigError(`error converting *[]${from} into *map[string]*api.${to}: duplicate name "${name}" in list`);
    result.set(name, read(entry.nested(field, `v1.${to}`, to)));
  }
  return result;
}

/** Resolves a file reference against the kubeconfig's directory (clientcmd ResolvePaths). */
function resolved(reference: string, base: string): string {
  return reference === '' || path.isAbsolute(reference) ? reference : path.join(base, reference);
}

function decodeConfig(text: string, base: string): RawConfig {
  let document: unknown;
  try {
    document = parseYaml(text);
  } catch (error) {
    throw new KubeconfigError(`yaml: ${error instanceof Error ? error.message.split('\n', 1)[0] : String(error)}`);
  }
  if (document === null || document === undefined) document = {};
  if (typeof document !== 'object' || Array.isArray(document)) {
    throw new KubeconfigError(`couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonTypeOf(document)} into Go value of type struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }`);
  }
  const root = new StructReader(document as Json, 'Config', '');
  const apiVersion = root.string('apiVersion') || 'v1';
  const kind = root.string('kind') || 'Config';
  if (apiVersion !== 'v1' || kind !== 'Config') throw new KubeconfigError(`no kind "${kind}" is registered for version "${apiVersion}"`);
  const clusters = named(root.list('clusters', '[]v1.NamedCluster', 'NamedCluster'), 'cluster', (cluster) => ({
    server: cluster.string('server'),
    certificateAuthority: resolved(cluster.string('certificate-authority'), base),
    certificateAuthorityData: cluster.bytes('certificate-authority-data'),
    insecureSkipTlsVerify: cluster.bool('insecure-skip-tls-verify'),
    tlsServerName: cluster.string('tls-server-name'),
  }), 'NamedCluster', 'Cluster');
  const users = named(root.list('users', '[]v1.NamedAuthInfo', 'NamedAuthInfo'), 'user', (user) => ({
    clientCertificate: resolved(user.string('client-certificate'), base),
    clientCertificateData: user.bytes('client-certificate-data'),
    clientKey: resolved(user.string('client-key'), base),
    clientKeyData: user.bytes('client-key-data'),
    token: user.string('token'),
    tokenFile: resolved(user.string('tokenFile'), base),
    username: user.string('username'),
    password: user.string('password'),
    exec: user.present('exec'),
    authProvider: user.present('auth-provider'),
  }), 'NamedAuthInfo', 'AuthInfo');
  const contexts = named(root.list('contexts', '[]v1.NamedContext', 'NamedContext'), 'context', (context) => ({
    cluster: context.string('cluster'), user: context.string('user'),
  }), 'NamedContext', 'Context');
  return { currentContext: root.string('current-context'), clusters, users, contexts };
}

// ---------------------------------------------------------------------------------------------
// clientcmd's DirectClientConfig.ConfirmUsable and the transport's TLS checks.

const emptyConfigMessage = 'no configuration has been provided, try setting KUBERNETES_MASTER environment variable';
const emptyClusterMessage = 'cluster has no server defined';

function invalidConfiguration(errors: readonly string[]): KubeconfigError {
  const unique = [...new Set(errors)];
  return new KubeconfigError(`invalid configuration: ${unique.length === 1 ? unique[0]! : `[${unique.join(', ')}]`}`);
}

function unreadable(file: string): string | undefined {
  try {
    readFileSync(file);
    return undefined;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EISDIR') return undefined;
    return `open ${file}: ${goErrnoText(error)}`;
  }
}

function authInfoErrors(name: string, user: RawAuthInfo): string[] {
  const errors: string[] = [];
  const methods: string[] = [];
  if (user.token !== '') methods.push('token');
  if (user.username !== '' || user.password !== '') methods.push('basicAuth');
  if (user.clientCertificate !== '' || user.clientCertificateData !== undefined) {
    if (user.clientCertificate !== '' && user.clientCertificateData !== undefined) {
      errors.push(`client-cert-data and client-cert are both specified for ${name}. client-cert-data will override.`);
    }
    if (user.clientKey !== '' && user.clientKeyData !== undefined) {
      errors.push(`client-key-data and client-key are both specified for ${name}; client-key-data will override`);
    }
    if (user.clientKey === '' && user.clientKeyData === undefined) {
      errors.push(`client-key-data or client-key must be specified for ${name} to use the clientCert authentication method.`);
    }
    const certificateProblem = user.clientCertificate === '' ? undefined : unreadable(user.clientCertificate);
    if (certificateProblem !== undefined) errors.push(`unable to read client-cert ${user.clientCertificate} for ${name} due to ${certificateProblem}`);
    const keyProblem = user.clientKey === '' ? undefined : unreadable(user.clientKey);
    if (keyProblem !== undefined) errors.push(`unable to read client-key ${user.clientKey} for ${name} due to ${keyProblem}`);
  }
  if (methods.length > 1) errors.push(`more than one authentication method found for ${name}; found [${methods.join(' ')}], only one is allowed`);
  return errors;
}

function isEmptyCluster(cluster: RawCluster): boolean {
  return cluster.server === '' && cluster.certificateAuthority === '' && cluster.certificateAuthorityData === undefined
    && !cluster.insecureSkipTlsVerify && cluster.tlsServerName === '';
}

function clusterErrors(name: string, cluster: RawCluster): string[] {
  if (isEmptyCluster(cluster)) return [emptyClusterMessage];
  const errors: string[] = [];
  if (cluster.server === '') errors.push(name === '' ? 'default cluster has no server defined' : `no server found for cluster "${name}"`);
  if (cluster.certificateAuthority !== '' && cluster.certificateAuthorityData !== undefined) {
    errors.push(`certificate-authority-data and certificate-authority are both specified for ${name}. certificate-authority-data will override.`);
  }
  const problem = cluster.certificateAuthority === '' ? undefined : unreadable(cluster.certificateAuthority);
  if (problem !== undefined) errors.push(`unable to read certificate-authority ${cluster.certificateAuthority} for ${name} due to ${problem}`);
  return errors;
}

const noCluster: RawCluster = { server: '', certificateAuthority: '', certificateAuthorityData: undefined, insecureSkipTlsVerify: false, tlsServerName: '' };
const noUser: RawAuthInfo = {
  clientCertificate: '', clientCertificateData: undefined, clientKey: '', clientKeyData: undefined, token: '', tokenFile: '',
  username: '', password: '', exec: false, authProvider: false,
};

function latin1(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('latin1');
}

function clientCertificateProblem(certificatePem: string, keyPem: string): string | undefined {
  if (!certificatePem.includes('-----BEGIN')) return 'tls: failed to find any PEM data in certificate input';
  if (!keyPem.includes('-----BEGIN')) return 'tls: failed to find any PEM data in key input';
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(certificatePem);
  } catch {
    return 'tls: failed to parse certificate: x509: malformed certificate';
  }
  try {
    if (!certificate.checkPrivateKey(createPrivateKey(keyPem))) return 'tls: private key does not match public key';
  } catch {
    return 'tls: failed to parse private key';
  }
  return undefined;
}

function serverUrl(server: string, tls: boolean): URL {
  const withScheme = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(server) ? server : `${tls ? 'https' : 'http'}://${server}`;
  try {
    const url = new URL(withScheme);
    url.hash = '';
    return url;
  } catch {
    throw new KubeconfigError('host must be a URL or a host:port pair');
  }
}

/**
 * Loads a webhook kubeconfig the way kube-apiserver does at start (webhook.LoadKubeconfig and
 * the client built from it); throws a KubeconfigError with kube's message when it would refuse.
 */
export function loadWebhookKubeconfig(file: string): WebhookKubeconfig {
  try {
    statSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new KubeconfigError(`stat ${file}: no such file or directory`);
  }
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new KubeconfigError(`error loading config file "${file}": ${(error as NodeJS.ErrnoException).code === 'EISDIR' ? `read ${file}: is a directory` : `open ${file}: ${goErrnoText(error)}`}`);
  }
  let config: RawConfig;
  try {
    config = decodeConfig(text, path.dirname(path.resolve(file)));
  } catch (error) {
    throw new KubeconfigError(`error loading config file "${file}": ${(error as Error).message}`);
  }

  const context = config.contexts.get(config.currentContext);
  const userName = context?.user ?? '';
  const clusterName = context?.cluster ?? '';
  const user = config.users.get(userName) ?? noUser;
  const cluster = config.clusters.get(clusterName) ?? noCluster;
  const errors: string[] = [];
  if (config.currentContext !== '' && context === undefined) errors.push(`context was not found for specified context: ${config.currentContext}`);
  errors.push(...authInfoErrors(userName, user), ...clusterErrors(clusterName, cluster));
  if (errors.length === 1 && errors[0] === emptyClusterMessage) throw invalidConfiguration([emptyConfigMessage]);
  if (errors.length > 0) throw invalidConfiguration(errors);
  if (user.exec || user.authProvider) throw new KubeconfigError(`user "${userName}" uses an ${user.exec ? 'exec' : 'auth-provider'} credential plugin, which kstore does not run`);

  const caBytes = cluster.certificateAuthorityData ?? (cluster.certificateAuthority === '' ? undefined : readFileSync(cluster.certificateAuthority));
  const hasClientCertificate = user.clientCertificate !== '' || user.clientCertificateData !== undefined;
  const tls = caBytes !== undefined || hasClientCertificate || cluster.insecureSkipTlsVerify || cluster.tlsServerName !== '';
  const server = serverUrl(cluster.server, tls);
  const secure = server.protocol === 'https:';
  if (caBytes !== undefined && cluster.insecureSkipTlsVerify) {
    throw new KubeconfigError('specifying a root certificates file with the insecure flag is not allowed');
  }
  const caProblem = caBytes === undefined ? undefined : caBundleProblem(caBytes);
  if (caProblem !== undefined) throw new KubeconfigError(caProblem);

  // client-go reads the user's credentials only for a TLS transport.
  const certificateBytes = !secure || !hasClientCertificate ? undefined : user.clientCertificateData ?? readFileSync(user.clientCertificate);
  const keyBytes = certificateBytes === undefined ? undefined : user.clientKeyData ?? readFileSync(user.clientKey);
  const clientCertificatePem = certificateBytes === undefined ? undefined : latin1(certificateBytes);
  const clientKeyPem = keyBytes === undefined ? undefined : latin1(keyBytes);
  if (clientCertificatePem !== undefined && clientKeyPem !== undefined) {
    const problem = clientCertificateProblem(clientCertificatePem, clientKeyPem);
    if (problem !== undefined) throw new KubeconfigError(problem);
  }
  let token: string | undefined;
  let tokenFile: string | undefined;
  if (secure && (user.token !== '' || user.tokenFile !== '')) {
    tokenFile = user.tokenFile === '' ? undefined : user.tokenFile;
    token = user.token === '' ? undefined : user.token;
    if (token === undefined && tokenFile !== undefined) {
      try {
        token = readFileSync(tokenFile, 'utf8');
      } catch (error) {
        throw new KubeconfigError(`open ${tokenFile}: ${goErrnoText(error)}`);
      }
    }
  }
  return {
    file: path.resolve(file), server, insecureSkipTlsVerify: cluster.insecureSkipTlsVerify,
    ...(caBytes === undefined ? {} : { caPem: latin1(caBytes) }),
    ...(cluster.tlsServerName === '' ? {} : { tlsServerName: cluster.tlsServerName }),
    ...(clientCertificatePem === undefined ? {} : { clientCertificatePem }),
    ...(clientKeyPem === undefined ? {} : { clientKeyPem }),
    ...(token === undefined ? {} : { token }),
    ...(tokenFile === undefined ? {} : { tokenFile }),
    ...(secure && (user.username !== '' || user.password !== '') ? { basicAuth: { username: user.username, password: user.password } } : {}),
  };
}

// ---------------------------------------------------------------------------------------------
// The client.

/** A failed webhook call, worded like client-go's errors; `retriable` as DefaultShouldRetry. */
export class WebhookRequestError extends Error {
  readonly retriable: boolean;
  /** The HTTP status the webhook answered, when it answered. */
  readonly statusCode: number | undefined;

  constructor(message: string, options: { readonly retriable: boolean; readonly statusCode?: number }) {
    super(message);
    this.name = 'WebhookRequestError';
    this.retriable = options.retriable;
    this.statusCode = options.statusCode;
  }
}

export interface WebhookPostOptions {
  /** Absolute timeout of this call (connect, request, response body); the client's otherwise. */
  readonly timeoutMs?: number;
}

/** POSTs JSON to one webhook and returns the JSON it answered (any 2xx). */
export interface WebhookClient {
  readonly url: string;
  post(body: unknown, options?: WebhookPostOptions): Promise<unknown>;
  /** Closes idle keep-alive connections. */
  close(): void;
}

export interface WebhookClientOptions {
  /** Default absolute timeout of each call; kube's 30 s. */
  readonly timeoutMs?: number;
  readonly now?: () => number;
}

interface StatusLike {
  readonly code: number;
  readonly reason: string;
  readonly message: string;
  readonly retryAfterSeconds: number;
}

/** apimachinery's NewGenericServerResponse for a response that is not a Status. */
function genericServerResponse(code: number, serverMessage: string, retryAfterSeconds: number): StatusLike {
  const known: Record<number, readonly [string, string]> = {
    409: ['AlreadyExists', 'the server reported a conflict'],
    404: ['NotFound', 'the server could not find the requested resource'],
    400: ['BadRequest', 'the server rejected our request for an unknown reason'],
    401: ['Unauthorized', 'the server has asked for the client to provide credentials'],
    403: ['Forbidden', serverMessage],
    405: ['MethodNotAllowed', 'the server does not allow this method on the requested resource'],
    406: ['NotAcceptable', serverMessage === '' || serverMessage === 'unknown' ? 'the server was unable to respond with a content type that the client supports' : serverMessage],
    415: ['UnsupportedMediaType', serverMessage],
    422: ['Invalid', 'the server rejected our request due to an error in our request'],
    429: ['TooManyRequests', 'the server has received too many requests and has asked us to try again later'],
    503: ['ServiceUnavailable', 'the server is currently unable to handle the request'],
    504: ['Timeout', 'the server was unable to return a response in the time allotted, but may still be processing the request'],
  };
  const entry = known[code];
  if (entry !== undefined) return { code, reason: entry[0], message: entry[1], retryAfterSeconds };
  if (code >= 500) {
    return { code, reason: 'InternalError', message: `an error on the server (${JSON.stringify(serverMessage)}) has prevented the request from succeeding`, retryAfterSeconds };
  }
  return { code, reason: '', message: `the server responded with the status code ${code} but did not return more information`, retryAfterSeconds };
}

function isObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A Status object's failure (client-go's Result.Error / errors.FromObject). */
function statusFailure(value: unknown, code: number): StatusLike | undefined {
  if (!isObject(value) || value['kind'] !== 'Status' || value['status'] === 'Success') return undefined;
  const details = isObject(value['details']) ? value['details'] : {};
  return {
    code: typeof value['code'] === 'number' ? value['code'] : code,
    reason: typeof value['reason'] === 'string' ? value['reason'] : '',
    message: typeof value['message'] === 'string' ? value['message'] : '',
    retryAfterSeconds: typeof details['retryAfterSeconds'] === 'number' ? details['retryAfterSeconds'] : 0,
  };
}

/** kube's DefaultShouldRetry for an API error. */
function retriableStatus(status: StatusLike): boolean {
  if (status.reason === 'InternalError' || status.reason === 'Timeout' || status.reason === 'TooManyRequests') return true;
  if (status.reason === 'ServerTimeout') return true;
  return status.retryAfterSeconds > 0;
}

function statusError(status: StatusLike): WebhookRequestError {
  return new WebhookRequestError(status.message, { retriable: retriableStatus(status), statusCode: status.code });
}

function retryAfterSeconds(header: string | string[] | undefined): number {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined) return 0;
  const seconds = Number.parseInt(value, 10);
  return Number.isFinite(seconds) && String(seconds) === value.trim() ? seconds : 0;
}

function isTextResponse(contentType: string | undefined): boolean {
  if (contentType === undefined || contentType === '') return true;
  return contentType.split(';', 1)[0]!.trim().toLowerCase().startsWith('text/');
}

const untrustedCertificateCodes = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'SELF_SIGNED_CERT_IN_CHAIN', 'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY', 'UNABLE_TO_GET_ISSUER_CERT', 'CERT_SIGNATURE_FAILURE',
]);

/** A transport failure in Go's words (url.Error around net/tls errors). */
function transportError(url: URL, error: NodeJS.ErrnoException): WebhookRequestError {
  const where = `Post "${url.href}"`;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = url.port === '' ? (url.protocol === 'https:' ? '443' : '80') : url.port;
  const code = error.code ?? '';
  if (untrustedCertificateCodes.has(code)) {
    return new WebhookRequestError(`${where}: tls: failed to verify certificate: x509: certificate signed by unknown authority`, { retriable: false });
  }
  if (code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID') {
    return new WebhookRequestError(`${where}: tls: failed to verify certificate: x509: certificate has expired or is not yet valid`, { retriable: false });
  }
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    return new WebhookRequestError(`${where}: tls: failed to verify certificate: x509: certificate is not valid for ${host}`, { retriable: false });
  }
  if (code === 'ECONNREFUSED') return new WebhookRequestError(`${where}: dial tcp ${host}:${port}: connect: connection refused`, { retriable: false });
  if (code === 'ENOTFOUND') return new WebhookRequestError(`${where}: dial tcp: lookup ${host}: no such host`, { retriable: false });
  if (code === 'ECONNRESET' || code === 'EPIPE') return new WebhookRequestError(`${where}: read: connection reset by peer`, { retriable: true });
  if (error.message === 'socket hang up') return new WebhookRequestError(`${where}: EOF`, { retriable: false });
  return new WebhookRequestError(`${where}: ${error.message}`, { retriable: false });
}

class DeadlineExceeded extends Error {
  constructor() {
    super('context deadline exceeded');
  }
}

interface RawResponse {
  readonly statusCode: number;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: Buffer;
}

/** Interprets a webhook's answer as client-go's transformResponse and Result.Into do. */
function interpretResponse(response: RawResponse): unknown {
  const { statusCode, headers, body } = response;
  const contentType = headers['content-type'];
  const text = body.toString('utf8');
  if (statusCode < 200 || statusCode > 206) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    const failure = statusFailure(parsed, statusCode);
    if (failure !== undefined) throw statusError(failure);
    const message = isTextResponse(contentType) ? body.subarray(0, maxUnstructuredResponseTextBytes).toString('utf8').trim() : 'unknown';
    throw statusError(genericServerResponse(statusCode, message, retryAfterSeconds(headers['retry-after'])));
  }
  if (body.length === 0) {
    throw new WebhookRequestError(`0-length response with status code: ${statusCode} and content type: ${contentType ?? 'application/json'}`, { retriable: false, statusCode });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new WebhookRequestError(`couldn't get version/kind; json parse error: ${(error as Error).message}`, { retriable: false, statusCode });
  }
  const failure = statusFailure(parsed, statusCode);
  if (failure !== undefined) throw statusError(failure);
  return parsed;
}

/** The bearer token of the kubeconfig's user: tokenFile re-read each minute, else token. */
function tokenSource(config: WebhookKubeconfig, now: () => number): () => Promise<string | undefined> {
  let cached = config.token;
  let readAt = config.tokenFile === undefined ? Number.POSITIVE_INFINITY : now();
  return async () => {
    if (config.tokenFile === undefined || now() - readAt < tokenFileRefreshMs) return cached?.trim();
    try {
      const text = (await readFile(config.tokenFile, 'utf8')).trim();
      if (text !== '') cached = text;
    } catch {
      // client-go keeps using the last token it read when a re-read fails.
    }
    readAt = now();
    return cached?.trim();
  };
}

/** A client for the webhook a loaded kubeconfig names. */
export function webhookClient(config: WebhookKubeconfig, options: WebhookClientOptions = {}): WebhookClient {
  const now = options.now ?? Date.now;
  const defaultTimeoutMs = options.timeoutMs ?? defaultWebhookTimeoutMs;
  const url = config.server;
  const secure = url.protocol === 'https:';
  const agent = secure
    ? new https.Agent({
      keepAlive: true,
      rejectUnauthorized: !config.insecureSkipTlsVerify,
      ...(config.caPem === undefined ? {} : { ca: config.caPem }),
      ...(config.clientCertificatePem === undefined ? {} : { cert: config.clientCertificatePem }),
      ...(config.clientKeyPem === undefined ? {} : { key: config.clientKeyPem }),
      ...(config.tlsServerName === undefined ? {} : { servername: config.tlsServerName }),
    })
    : new http.Agent({ keepAlive: true });
  const token = tokenSource(config, now);

  function once(payload: string, authorization: string | undefined, timeoutMs: number): Promise<RawResponse & { reused: boolean }> {
    return new Promise((resolve, reject) => {
      const headers: http.OutgoingHttpHeaders = {
        'content-type': 'application/json', accept: 'application/json, */*', 'content-length': Buffer.byteLength(payload), 'user-agent': 'kstore',
      };
      if (authorization !== undefined) headers['authorization'] = authorization;
      const request = (secure ? https : http).request(url, {
        method: 'POST', agent, headers,
        ...(secure && config.tlsServerName !== undefined ? { servername: config.tlsServerName } : {}),
      });
      const timer = setTimeout(() => request.destroy(new DeadlineExceeded()), timeoutMs);
      const fail = (error: Error) => {
        clearTimeout(timer);
        reject(Object.assign(error, { reused: request.reusedSocket }));
      };
      request.on('error', fail);
      request.on('response', (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', fail);
        response.on('end', () => {
          clearTimeout(timer);
          resolve({ statusCode: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks), reused: request.reusedSocket });
        });
      });
      request.end(payload);
    });
  }

  return {
    url: url.href,
    async post(body, postOptions = {}) {
      if (url.protocol !== 'https:' && url.protocol !== 'http:') {
        throw new WebhookRequestError(`Post "${url.href}": unsupported protocol scheme "${url.protocol.replace(/:$/, '')}"`, { retriable: false });
      }
      const payload = JSON.stringify(body);
      const bearer = await token();
      const authorization = bearer !== undefined && bearer !== ''
        ? `Bearer ${bearer}`
        : config.basicAuth === undefined ? undefined : `Basic ${Buffer.from(`${config.basicAuth.username}:${config.basicAuth.password}`).toString('base64')}`;
      const timeoutMs = postOptions.timeoutMs !== undefined && postOptions.timeoutMs > 0 ? postOptions.timeoutMs : defaultTimeoutMs;
      let response: RawResponse;
      try {
        response = await once(payload, authorization, timeoutMs);
      } catch (error) {
        const failure = error as NodeJS.ErrnoException & { reused?: boolean };
        if (failure instanceof DeadlineExceeded) throw new WebhookRequestError(`Post "${url.href}": context deadline exceeded`, { retriable: false });
        // A kept-alive connection the webhook closed meanwhile: send once more on a fresh one.
        if (failure.reused !== true || (failure.code !== 'ECONNRESET' && failure.message !== 'socket hang up')) throw transportError(url, failure);
        try {
          response = await once(payload, authorization, timeoutMs);
        } catch (retryError) {
          if (retryError instanceof DeadlineExceeded) throw new WebhookRequestError(`Post "${url.href}": context deadline exceeded`, { retriable: false });
          throw transportError(url, retryError as NodeJS.ErrnoException);
        }
      }
      return interpretResponse(response);
    },
    close() {
      agent.destroy();
    },
  };
}

/** Loads the kubeconfig and returns a client for its webhook (kube's LoadKubeconfig + client). */
export function webhookClientFromKubeconfig(file: string, options: WebhookClientOptions = {}): WebhookClient {
  return webhookClient(loadWebhookKubeconfig(file), options);
}

// ---------------------------------------------------------------------------------------------
// Reviews and retries.

/**
 * The review object in a webhook's answer: it must be an object; an absent apiVersion or kind
 * takes the expected one (client-go decodes into the typed object), a different one is refused.
 */
export function decodeReview(answer: unknown, apiVersion: string, kind: string): Json {
  if (!isObject(answer)) {
    throw new WebhookRequestError(`couldn't get version/kind; json parse error: json: cannot unmarshal ${jsonTypeOf(answer)} into Go value of type struct`, { retriable: false });
  }
  const gotVersion = typeof answer['apiVersion'] === 'string' && answer['apiVersion'] !== '' ? answer['apiVersion'] : apiVersion;
  const gotKind = typeof answer['kind'] === 'string' && answer['kind'] !== '' ? answer['kind'] : kind;
  if (gotKind === kind && gotVersion !== apiVersion && gotVersion.split('/', 1)[0] === apiVersion.split('/', 1)[0]) {
    const short = (version: string) => version.split('/').at(-1);
    throw new WebhookRequestError(`converting (${short(gotVersion)}.${kind}) to (${short(apiVersion)}.${kind}): unknown conversion`, { retriable: false });
  }
  if (gotKind !== kind || gotVersion !== apiVersion) {
    throw new WebhookRequestError(`no kind "${gotKind}" is registered for version "${gotVersion}"`, { retriable: false });
  }
  return answer;
}

/** wait.Backoff as kube's webhooks use it. */
export interface RetryBackoff {
  readonly initialDelayMs: number;
  readonly factor: number;
  readonly jitter: number;
  /** Attempts in all (kube's Steps). */
  readonly steps: number;
}

/** kube's DefaultRetryBackoff for the token webhook and the authorization webhook. */
export const defaultRetryBackoff: RetryBackoff = { initialDelayMs: 500, factor: 1.5, jitter: 0.2, steps: 5 };

export type Sleep = (ms: number) => Promise<void>;

const realSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Calls `call` until it succeeds, fails with an error that is not retriable, or the attempts
 * run out (kube's webhook.WithExponentialBackoff); the last error is thrown.
 */
export async function withWebhookRetry<T>(call: () => Promise<T>, backoff: RetryBackoff = defaultRetryBackoff, sleep: Sleep = realSleep): Promise<T> {
  let delay = backoff.initialDelayMs;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await call();
    } catch (error) {
      const retriable = error instanceof WebhookRequestError && error.retriable;
      if (!retriable || attempt >= backoff.steps) throw error;
    }
    const jittered = backoff.jitter > 0 ? delay + Math.random() * backoff.jitter * delay : delay;
    await sleep(jittered);
    delay *= backoff.factor;
  }
}

export type ReviewFieldType = 'bool' | 'string' | '[]string';

/**
 * One field of a review's answer, checked as encoding/json checks it: absent or null is the zero
 * value, another JSON type fails the call with Go's "cannot unmarshal" error.
 */
export function reviewField(fields: Json, name: string, type: 'bool', struct: string, at: string): boolean;
export function reviewField(fields: Json, name: string, type: 'string', struct: string, at: string): string;
export function reviewField(fields: Json, name: string, type: '[]string', struct: string, at: string): string[];
export function reviewField(fields: Json, name: string, type: ReviewFieldType, struct: string, at: string): boolean | string | string[] {
  const value = fields[name];
  const mismatch = (got: unknown, goType: string) => new WebhookRequestError(
    `json: cannot unmarshal ${jsonTypeOf(got)} into Go struct field ${struct}.${at}${name} of type ${goType}`, { retriable: false },
  );
  if (type === 'bool') {
    if (value === undefined || value === null) return false;
    if (typeof value !== 'boolean') throw mismatch(value, 'bool');
    return value;
  }
  if (type === 'string') {
    if (value === undefined || value === null) return '';
    if (typeof value !== 'string') throw mismatch(value, 'string');
    return value;
  }
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw mismatch(value, '[]string');
  return value.map((item: unknown) => {
    if (typeof item !== 'string') throw mismatch(item, 'string');
    return item;
  });
}

/** A nested object of a review's answer (absent or null: empty), checked like reviewField. */
export function reviewObject(fields: Json, name: string, goType: string, struct: string, at: string): Json {
  const value = fields[name];
  if (value === undefined || value === null) return {};
  if (!isObject(value)) {
    throw new WebhookRequestError(`json: cannot unmarshal ${jsonTypeOf(value)} into Go struct field ${struct}.${at}${name} of type ${goType}`, { retriable: false });
  }
  return value;
}
