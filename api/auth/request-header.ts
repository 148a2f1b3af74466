// Owns: the authenticating proxy (--requestheader-client-ca-file, --requestheader-allowed-names,
// --requestheader-username-headers, --requestheader-uid-headers, --requestheader-group-headers,
// --requestheader-extra-headers-prefix; kube's
// staging/src/k8s.io/apiserver/pkg/authentication/request/headerrequest behind the x509
// Verifier). A request's identity headers are trusted only when its TLS client certificate
// chains to the request-header CA bundle (verified here against that bundle alone, not the
// client CA) and, when allowed names are given, its CN is one of them; otherwise the
// authenticator rejects (kube's Verifier error), which lets another authenticator (the client
// certificate's own) still succeed. A trusted request without a username header is
// `noCredentials`. The user: the first non-empty value among the username headers (in order),
// likewise the uid, every non-empty value of every group header, and extra from every
// `<prefix><key>` header (key lowercased then percent-decoded; values as given), plus
// system:authenticated. The proxy's headers are removed from the request by authn.ts after
// authentication, in every accepted case; pass `proxyHeaderNames(config)` as its `proxyHeaders`.
// kube-apiserver's flags have no defaults (kubeadm passes X-Remote-User, X-Remote-Group,
// X-Remote-Extra-); validateRequestHeaderConfig checks them as kube does.
import type { FastifyRequest } from 'fastify';
import { clientCertificateVerifier, withAuthenticatedGroup } from './authn.ts';
import type { Authenticator, ProxyHeaderNames } from './authn.ts';

/** The request-header flags, with the CA bundle's content instead of its file name. */
export interface RequestHeaderConfig extends ProxyHeaderNames {
  /** PEM content of --requestheader-client-ca-file. */
  readonly clientCaPem: string;
  /** --requestheader-allowed-names: the CNs a proxy's certificate may have; empty: any. */
  readonly allowedNames: readonly string[];
}

/** The header names of a request-header config, for authn.ts to remove after authentication. */
export function proxyHeaderNames(config: ProxyHeaderNames): ProxyHeaderNames {
  return {
    usernameHeaders: config.usernameHeaders.map((name) => name.trim()),
    uidHeaders: config.uidHeaders.map((name) => name.trim()),
    groupHeaders: config.groupHeaders.map((name) => name.trim()),
    extraHeaderPrefixes: config.extraHeaderPrefixes.map((name) => name.trim()),
  };
}

function hasIgnoringCase(values: readonly string[], wanted: string): boolean {
  return values.some((value) => value.toLowerCase() === wanted.toLowerCase());
}

/**
 * kube's RequestHeaderAuthenticationOptions.Validate (RemoteRequestHeaderUID is on by default
 * in 1.33): errors stop the server, warnings are logged.
 */
export function validateRequestHeaderConfig(config: ProxyHeaderNames & { readonly allowedNames: readonly string[] }): {
  readonly errors: readonly string[]; readonly warnings: readonly string[];
} {
  const errors: string[] = [];
  const warnings: string[] = [];
  const blank = (flag: string, values: readonly string[]): void => {
    if (values.some((value) => value.trim() === '')) errors.push(`empty value in "${flag}"`);
  };
  blank('requestheader-username-headers', config.usernameHeaders);
  blank('requestheader-group-headers', config.groupHeaders);
  blank('requestheader-extra-headers-prefix', config.extraHeaderPrefixes);
  blank('requestheader-allowed-names', config.allowedNames);
  const standard = (flag: string, values: readonly string[], name: string, what: string): string | undefined =>
    values.length > 0 && !hasIgnoringCase(values, name) ? `--${flag} is set without specifying the standard ${name} ${what} - API aggregation will not work` : undefined;
  for (const warning of [
    standard('requestheader-username-headers', config.usernameHeaders, 'X-Remote-User', 'header'),
    standard('requestheader-group-headers', config.groupHeaders, 'X-Remote-Group', 'header'),
    standard('requestheader-extra-headers-prefix', config.extraHeaderPrefixes, 'X-Remote-Extra-', 'header prefix'),
  ]) if (warning !== undefined) warnings.push(warning);
  blank('requestheader-uid-headers', config.uidHeaders);
  const uid = standard('requestheader-uid-headers', config.uidHeaders, 'X-Remote-Uid', 'header');
  if (uid !== undefined) errors.push(uid);
  return { errors, warnings };
}

/**
 * The request's headers, every value of each (node joins repeated headers in `headers`, so the
 * raw message's headersDistinct is read; injected requests lack it and fall back to `headers`).
 */
function distinctHeaders(request: FastifyRequest): Readonly<Record<string, readonly string[] | undefined>> {
  const distinct = (request.raw as Partial<typeof request.raw>).headersDistinct;
  if (distinct !== undefined) return distinct;
  const result: Record<string, readonly string[]> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) result[name] = Array.isArray(value) ? value : [String(value)];
  }
  return result;
}

/** All values of a header, one per header line. */
function headerValues(request: FastifyRequest, name: string): readonly string[] {
  return distinctHeaders(request)[name.toLowerCase()] ?? [];
}

/** The first non-empty value of the first header (in order) that has one (Go's Header.Get per name). */
function firstValue(request: FastifyRequest, names: readonly string[]): string {
  for (const name of names) {
    const value = headerValues(request, name)[0] ?? '';
    if (value !== '') return value;
  }
  return '';
}

/**
 * kube's unescapeExtraKey (Go's url.PathUnescape): %XX sequences decoded as UTF-8; a key with a
 * malformed escape is kept as it is. `+` stays a plus.
 */
export function unescapeExtraKey(encoded: string): string {
  if (!/^(?:[^%]|%[0-9A-Fa-f]{2})*$/.test(encoded)) return encoded;
  const bytes: number[] = [];
  for (let index = 0; index < encoded.length;) {
    if (encoded[index] === '%') {
      bytes.push(Number.parseInt(encoded.slice(index + 1, index + 3), 16));
      index += 3;
    } else {
      const codePoint = encoded.codePointAt(index)!;
      const char = String.fromCodePoint(codePoint);
      bytes.push(...Buffer.from(char, 'utf8'));
      index += char.length;
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

function extraFrom(request: FastifyRequest, prefixes: readonly string[]): Record<string, string[]> {
  const extra: Record<string, string[]> = {};
  const headers = distinctHeaders(request);
  for (const prefix of prefixes) {
    const lowerPrefix = prefix.toLowerCase();
    for (const [name, values] of Object.entries(headers)) {
      if (values === undefined || !name.startsWith(lowerPrefix)) continue;
      const key = unescapeExtraKey(name.slice(lowerPrefix.length));
      (extra[key] ??= []).push(...values);
    }
  }
  return extra;
}

/** The request-header authenticator (kube's x509 Verifier around the header authenticator). */
export function requestHeaderAuthenticator(config: RequestHeaderConfig, now: () => number = Date.now): Authenticator {
  const names = proxyHeaderNames(config);
  const verify = clientCertificateVerifier(config.clientCaPem, now);
  return (request) => {
    const verification = verify(request);
    if (verification.type === 'none') return { type: 'noCredentials' };
    if (verification.type === 'rejected') return verification;
    if (config.allowedNames.length > 0) {
      const subject = verification.leaf.subject as { CN?: string | string[] } | undefined;
      const cn = Array.isArray(subject?.CN) ? subject.CN[0] ?? '' : subject?.CN ?? '';
      if (!config.allowedNames.includes(cn)) return { type: 'rejected', reason: `x509: subject with cn=${cn} is not in the allowed list` };
    }
    const name = firstValue(request, names.usernameHeaders);
    if (name === '') return { type: 'noCredentials' };
    const uid = firstValue(request, names.uidHeaders);
    const groups = names.groupHeaders.flatMap((header) => headerValues(request, header).filter((value) => value !== ''));
    const extra = extraFrom(request, names.extraHeaderPrefixes);
    return { type: 'authenticated', user: withAuthenticatedGroup({ name, uid, groups, extra }) };
  };
}
