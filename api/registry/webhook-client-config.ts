// Owns: k8s.io/apiserver's rules for how a webhook is reached, shared by every kind that names
// one (admission webhook configurations, a CustomResourceDefinition's conversion webhook):
// ValidateWebhookURL with https required, and ValidateWebhookService (name, namespace, port,
// path), in kube's words. Pure.
import { goQuote } from '../go-format.ts';
import type { StatusCause } from '../status.ts';
import { invalidValue, nameProblems } from './validation.ts';

type Fields = Readonly<Record<string, unknown>>;

/** field.Invalid of a string value, rendered as Go's %q. */
function invalidText(field: string, value: string, detail: string): StatusCause {
  return { reason: 'FieldValueInvalid', message: `Invalid value: ${goQuote(value)}: ${detail}`, field };
}

function requiredValue(field: string, detail: string): StatusCause {
  return { reason: 'FieldValueRequired', message: `Required value: ${detail}`, field };
}

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

/**
 * ValidateWebhookService. `port` is the service's port after its kind's defaulting (443 for
 * both kinds; a missing one counts as 0, which is refused).
 */
export function webhookServiceCauses(field: string, service: Fields, port: number): StatusCause[] {
  const causes: StatusCause[] = [];
  if (typeof service['name'] !== 'string' || service['name'] === '') causes.push(requiredValue(`${field}.name`, 'service name is required'));
  if (typeof service['namespace'] !== 'string' || service['namespace'] === '') causes.push(requiredValue(`${field}.namespace`, 'service namespace is required'));
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
