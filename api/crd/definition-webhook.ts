// Owns: k8s.io/apiserver's webhook client rules as a CustomResourceDefinition's conversion
// webhook meets them (ValidateWebhookURL with https required, ValidateWebhookService, the
// caBundle check client-go's TLS config makes) in kube's words. The caBundle check decodes the
// PEM blocks and requires a CERTIFICATE block holding a DER SEQUENCE; it does not parse the
// certificate itself. Pure.
import type { JsonValue } from '../../actors/index.ts';
import { invalidValue, nameProblems } from '../registry/validation.ts';
import { required } from '../registry/strategy-quota.ts';
import type { StatusCause } from '../status.ts';
import { goBytes, invalidRendered, invalidText } from './definition-go.ts';
import { fieldsOf, textOf } from './definition-internal.ts';
import type { Fields } from './definition-internal.ts';

/** Go's url.Parse, as far as the webhook URL rules look at it. */
function parseUrl(url: string): { scheme: string; host: string; user: string | undefined; fragment: string; query: string } {
  let rest = url;
  let fragment = '';
  const hash = rest.indexOf('#');
  if (hash >= 0) {
    fragment = rest.slice(hash + 1);
    rest = rest.slice(0, hash);
  }
  let query = '';
  const question = rest.indexOf('?');
  if (question >= 0) {
    query = rest.slice(question + 1);
    rest = rest.slice(0, question);
  }
  const schemeMatch = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(rest);
  const scheme = schemeMatch ? schemeMatch[1]!.toLowerCase() : '';
  if (schemeMatch) rest = rest.slice(schemeMatch[0].length);
  let host = '';
  let user: string | undefined;
  if (rest.startsWith('//')) {
    const authorityEnd = rest.slice(2).search(/\//);
    let authority = authorityEnd < 0 ? rest.slice(2) : rest.slice(2, 2 + authorityEnd);
    const at = authority.lastIndexOf('@');
    if (at >= 0) {
      user = authority.slice(0, at);
      authority = authority.slice(at + 1);
    }
    host = authority;
  }
  return { scheme, host, user, fragment, query };
}

/** ValidateWebhookURL(fldPath, url, forceHttps=true). */
export function webhookUrlCauses(field: string, url: string): StatusCause[] {
  const form = '; desired format: https://host[/path]';
  const parsed = parseUrl(url);
  const causes: StatusCause[] = [];
  if (parsed.scheme !== 'https') causes.push(invalidText(field, parsed.scheme, `'https' is the only allowed URL scheme${form}`));
  if (parsed.host === '') causes.push(invalidText(field, parsed.host, `host must be specified${form}`));
  if (parsed.user !== undefined) causes.push(invalidText(field, parsed.user, 'user information is not permitted in the URL'));
  if (parsed.fragment !== '') causes.push(invalidText(field, parsed.fragment, 'fragments are not permitted in the URL'));
  if (parsed.query !== '') causes.push(invalidText(field, parsed.query, 'query parameters are not permitted in the URL'));
  return causes;
}

/** ValidateWebhookService of the internal ServiceReference (its port is v1's, defaulted to 443). */
export function webhookServiceCauses(field: string, service: Fields): StatusCause[] {
  const causes: StatusCause[] = [];
  if (textOf(service['name']) === '') causes.push(required(`${field}.name`, 'service name is required'));
  if (textOf(service['namespace']) === '') causes.push(required(`${field}.namespace`, 'service namespace is required'));
  const port = typeof service['port'] === 'number' ? service['port'] : 443;
  if (!(Number.isInteger(port) && port >= 1 && port <= 65535)) causes.push(invalidValue(`${field}.port`, port, 'port is not valid: must be between 1 and 65535, inclusive'));
  if (typeof service['path'] !== 'string') return causes;
  const path = service['path'];
  if (path === '/' || path === '') return causes;
  if (path === '//') return [...causes, invalidText(`${field}.path`, path, 'segment[0] may not be empty')];
  if (!path.startsWith('/')) causes.push(invalidText(`${field}.path`, path, "must start with a '/'"));
  let check = path.slice(1);
  if (check.endsWith('/')) check = check.slice(0, -1);
  check.split('/').forEach((step, index) => {
    if (step === '') {
      causes.push(invalidText(`${field}.path`, path, `segment[${index}] may not be empty`));
      return;
    }
    for (const problem of nameProblems(step, 'dns1123Subdomain')) causes.push(invalidText(`${field}.path`, path, `segment[${index}]: ${problem}`));
  });
  return causes;
}

const base64Alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Standard base64 (Go's encoding/base64 StdEncoding, whitespace ignored); undefined when it does not decode. */
export function decodeBase64(text: string): Uint8Array | undefined {
  const clean = text.replace(/[\r\n\t ]/g, '');
  if (clean.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(clean)) return undefined;
  const bytes: number[] = [];
  for (let index = 0; index < clean.length; index += 4) {
    const chunk = clean.slice(index, index + 4);
    const values = [...chunk].map((char) => (char === '=' ? 0 : base64Alphabet.indexOf(char)));
    const bits = (values[0]! << 18) | (values[1]! << 12) | (values[2]! << 6) | values[3]!;
    bytes.push((bits >> 16) & 0xff);
    if (chunk[2] !== '=') bytes.push((bits >> 8) & 0xff);
    if (chunk[3] !== '=') bytes.push(bits & 0xff);
  }
  return Uint8Array.from(bytes);
}

function latin1(bytes: Uint8Array): string {
  let text = '';
  for (const byte of bytes) text += String.fromCharCode(byte);
  return text;
}

/**
 * Why client-go would refuse these CA bytes (transport.TLSConfigFor: "unable to load root
 * certificates: …"), or undefined when they hold a certificate.
 */
export function caBundleProblem(bytes: Uint8Array): string | undefined {
  const text = latin1(bytes);
  const block = /-----BEGIN ([^-\r\n]*)-----\r?\n([\s\S]*?)-----END \1-----/g;
  let found = false;
  let certificate = false;
  for (const match of text.matchAll(block)) {
    found = true;
    const [, type, body] = match;
    if (type !== 'CERTIFICATE' || /^[\w-]+:/m.test(body!)) continue;
    const der = decodeBase64(body!);
    if (der === undefined) continue;
    if (der[0] === 0x30) certificate = true;
    else return 'unable to load root certificates: failed to parse certificate: x509: malformed certificate';
  }
  if (certificate) return undefined;
  return found ? 'unable to load root certificates: no valid certificate authority data seen' : 'unable to load root certificates: unable to parse bytes as PEM block';
}

/** webhook.ValidateCABundle of a clientConfig's caBundle (base64 in JSON). */
export function caBundleCauses(field: string, caBundle: JsonValue | undefined): StatusCause[] {
  const bytes = decodeBase64(textOf(caBundle));
  if (bytes === undefined || bytes.length === 0) return [];
  const problem = caBundleProblem(bytes);
  return problem === undefined ? [] : [invalidRendered(field, goBytes(bytes), problem)];
}

/** Whether a clientConfig carries a caBundle client-go refuses (an empty one is not checked). */
export function hasInvalidCaBundle(clientConfig: JsonValue | undefined): boolean {
  const bytes = decodeBase64(textOf(fieldsOf(clientConfig)['caBundle']));
  return bytes !== undefined && bytes.length > 0 && caBundleProblem(bytes) !== undefined;
}
