// Owns: k8s.io/apiserver's webhook client rules as a CustomResourceDefinition's conversion
// webhook meets them (the URL and service rules are registry/webhook-client-config.ts's; here
// the CRD's port default and the caBundle check client-go's TLS config makes) in kube's words. The caBundle check decodes the
// PEM blocks and requires a CERTIFICATE block holding a DER SEQUENCE; it does not parse the
// certificate itself. Pure.
import type { JsonValue } from '../../actors/index.ts';
import type { StatusCause } from '../status.ts';
import { goBytes, invalidRendered } from './definition-go.ts';
import { webhookServiceCauses as sharedWebhookServiceCauses, webhookUrlCauses as sharedWebhookUrlCauses } from '../registry/webhook-client-config.ts';
import { fieldsOf, textOf } from './definition-internal.ts';
import type { Fields } from './definition-internal.ts';

/** ValidateWebhookURL (https required). */
export function webhookUrlCauses(field: string, url: string): StatusCause[] {
  return sharedWebhookUrlCauses(field, url);
}

/** ValidateWebhookService of the internal ServiceReference (its port is v1's, defaulted to 443). */
export function webhookServiceCauses(field: string, service: Fields): StatusCause[] {
  return sharedWebhookServiceCauses(field, service, typeof service['port'] === 'number' ? service['port'] : 443);
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
