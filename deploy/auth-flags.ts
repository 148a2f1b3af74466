// Owns: the authentication, authorization and admission flags of kube-apiserver that `kstore
// server` and `kstore api` share — their names, defaults, parsing and start-up checks — and the
// help text that documents them. Both roles spread `authFlagOptions` into their parseArgs
// options and hand the values to `parseAuthFlags`; `kstore cluster up` forwards the same flags
// to every API replica (`authFlagArguments`). Building the authenticators and authorizers from
// the parsed flags is deploy/auth-wiring.ts's job.
import path from 'node:path';
import { authorizationConfigFlagsError, legacyAuthorizationFlags, parseAuthorizationModes, parseGoDuration } from '../api/index.ts';
import type { AuthorizationMode } from '../api/index.ts';

/** parseArgs options of every flag this module owns (spread into a role's own options). */
export const authFlagOptions = {
  'anonymous-auth': { type: 'string' },
  'authentication-config': { type: 'string' },
  'token-auth-file': { type: 'string' },
  'enable-bootstrap-token-auth': { type: 'boolean' },
  'service-account-issuer': { type: 'string', multiple: true },
  'service-account-key-file': { type: 'string', multiple: true },
  'service-account-signing-key-file': { type: 'string' },
  'service-account-lookup': { type: 'string' },
  'service-account-max-token-expiration': { type: 'string' },
  'service-account-jwks-uri': { type: 'string' },
  'api-audiences': { type: 'string' },
  'requestheader-client-ca-file': { type: 'string' },
  'requestheader-allowed-names': { type: 'string' },
  'requestheader-username-headers': { type: 'string' },
  'requestheader-uid-headers': { type: 'string' },
  'requestheader-group-headers': { type: 'string' },
  'requestheader-extra-headers-prefix': { type: 'string' },
  'authentication-token-webhook-config-file': { type: 'string' },
  'authentication-token-webhook-version': { type: 'string' },
  'authentication-token-webhook-cache-ttl': { type: 'string' },
  'authorization-mode': { type: 'string' },
  'authorization-config': { type: 'string' },
  'authorization-policy-file': { type: 'string' },
  'authorization-webhook-config-file': { type: 'string' },
  'authorization-webhook-version': { type: 'string' },
  'authorization-webhook-cache-authorized-ttl': { type: 'string' },
  'authorization-webhook-cache-unauthorized-ttl': { type: 'string' },
  'enable-admission-plugins': { type: 'string' },
  'disable-admission-plugins': { type: 'string' },
} as const;

/** What parseArgs gives for `authFlagOptions`. */
export type AuthFlagValues = {
  readonly [K in keyof typeof authFlagOptions]?: (typeof authFlagOptions)[K] extends { type: 'boolean' } ? boolean
    : (typeof authFlagOptions)[K] extends { multiple: true } ? string[] : string;
};

export interface RequestHeaderFlags {
  readonly clientCaFile: string;
  readonly allowedNames: readonly string[];
  readonly usernameHeaders: readonly string[];
  readonly uidHeaders: readonly string[];
  readonly groupHeaders: readonly string[];
  readonly extraHeaderPrefixes: readonly string[];
}

export interface ServiceAccountFlags {
  /** --service-account-issuer: the first issues tokens, all are accepted. */
  readonly issuers: readonly string[];
  /** --service-account-key-file (verification keys); empty: the signing key, else the serving key. */
  readonly keyFiles: readonly string[];
  readonly signingKeyFile: string | undefined;
  /** --service-account-lookup (default true). */
  readonly lookup: boolean;
  /** --service-account-max-token-expiration in seconds (undefined: no cap). */
  readonly maxTokenExpirationSeconds: number | undefined;
  readonly jwksUri: string | undefined;
}

export interface TokenWebhookFlags {
  readonly configFile: string;
  readonly version: 'v1' | 'v1beta1';
  readonly cacheTtlMs: number;
}

export interface AuthorizationWebhookFlags {
  readonly configFile: string;
  readonly version: 'v1' | 'v1beta1';
  readonly authorizedTtlMs: number;
  readonly unauthorizedTtlMs: number;
}

export interface AuthFlags {
  /** --anonymous-auth as given (undefined: the default, which depends on the authorization modes). */
  readonly anonymousAuth: boolean | undefined;
  readonly authenticationConfigFile: string | undefined;
  readonly tokenAuthFile: string | undefined;
  readonly enableBootstrapTokenAuth: boolean;
  readonly serviceAccount: ServiceAccountFlags;
  /** --api-audiences (default: the service account issuers). */
  readonly apiAudiences: readonly string[];
  readonly requestHeader: RequestHeaderFlags | undefined;
  readonly tokenWebhook: TokenWebhookFlags | undefined;
  /** --authorization-mode, parsed; undefined when --authorization-config is used. */
  readonly authorizationModes: readonly AuthorizationMode[] | undefined;
  readonly authorizationConfigFile: string | undefined;
  readonly authorizationPolicyFile: string | undefined;
  readonly authorizationWebhook: AuthorizationWebhookFlags | undefined;
  readonly enableAdmissionPlugins: readonly string[];
  readonly disableAdmissionPlugins: readonly string[];
}

function list(value: string | undefined): string[] {
  return (value ?? '').split(',').map((item) => item.trim()).filter((item) => item !== '');
}

function booleanFlag(name: string, value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  // Go's strconv.ParseBool, as pflag reads a boolean given with a value.
  if (['1', 't', 'T', 'true', 'TRUE', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'false', 'FALSE', 'False'].includes(value)) return false;
  throw new Error(`invalid argument ${JSON.stringify(value)} for "--${name}" flag: strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax`);
}

function reviewVersion(name: string, value: string | undefined, fallback: 'v1' | 'v1beta1'): 'v1' | 'v1beta1' {
  if (value === undefined) return fallback;
  if (value === 'v1' || value === 'v1beta1') return value;
  throw new Error(`--${name}: unsupported version ${JSON.stringify(value)}, supported versions are ["v1" "v1beta1"]`);
}

function durationMs(name: string, value: string | undefined, fallbackMs: number): number {
  if (value === undefined) return fallbackMs;
  try {
    return parseGoDuration(value);
  } catch (error) {
    throw new Error(`invalid argument ${JSON.stringify(value)} for "--${name}" flag: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function absolute(file: string | undefined): string | undefined {
  return file === undefined || file === '' ? undefined : path.resolve(file);
}

/** kube-apiserver's defaults for the request-header flags are empty; kubeadm sets X-Remote-*. */
function requestHeaderFlags(values: AuthFlagValues): RequestHeaderFlags | undefined {
  const clientCaFile = absolute(values['requestheader-client-ca-file']);
  const given = ['requestheader-allowed-names', 'requestheader-username-headers', 'requestheader-uid-headers', 'requestheader-group-headers', 'requestheader-extra-headers-prefix'] as const;
  if (clientCaFile === undefined) {
    const stray = given.find((name) => values[name] !== undefined);
    if (stray !== undefined) throw new Error(`--${stray} needs --requestheader-client-ca-file`);
    return undefined;
  }
  return {
    clientCaFile,
    allowedNames: list(values['requestheader-allowed-names']),
    usernameHeaders: list(values['requestheader-username-headers']),
    uidHeaders: list(values['requestheader-uid-headers']),
    groupHeaders: list(values['requestheader-group-headers']),
    extraHeaderPrefixes: list(values['requestheader-extra-headers-prefix']),
  };
}

/** The 2-minute default of --authentication-token-webhook-cache-ttl, as kube-apiserver's. */
export const tokenWebhookCacheTtlMsDefault = 2 * 60_000;
/** kube-apiserver's --authorization-webhook-cache-authorized-ttl and -unauthorized-ttl defaults. */
export const authorizationWebhookAuthorizedTtlMsDefault = 5 * 60_000;
export const authorizationWebhookUnauthorizedTtlMsDefault = 30_000;
/** kube-apiserver's --authorization-mode default when neither it nor --authorization-config is set is AlwaysAllow; kstore's is RBAC. */
export const kstoreAuthorizationModeDefault = 'RBAC';

/**
 * Parses and checks the flags as kube-apiserver does at start-up. Throws with kube's message
 * for a combination it refuses: --authorization-config with --authorization-mode or the
 * webhook/policy flags, a mode needing a file without it, and the reverse.
 */
export function parseAuthFlags(values: AuthFlagValues): AuthFlags {
  const authorizationConfigFile = absolute(values['authorization-config']);
  const modeGiven = values['authorization-mode'];
  let authorizationModes: AuthorizationMode[] | undefined;
  if (authorizationConfigFile !== undefined) {
    const given = new Set(legacyAuthorizationFlags.filter((name) => values[name as keyof AuthFlagValues] !== undefined));
    const conflict = authorizationConfigFlagsError(authorizationConfigFile, given);
    if (conflict !== undefined) throw new Error(conflict);
  } else {
    authorizationModes = parseAuthorizationModes(modeGiven ?? kstoreAuthorizationModeDefault);
    if (authorizationModes.includes('ABAC') && values['authorization-policy-file'] === undefined) throw new Error('authorization-mode ABAC\'s authorization policy file not passed');
    if (!authorizationModes.includes('ABAC') && values['authorization-policy-file'] !== undefined) throw new Error('cannot specify --authorization-policy-file without mode ABAC');
    if (authorizationModes.includes('Webhook') && values['authorization-webhook-config-file'] === undefined) throw new Error('authorization-mode Webhook\'s authorization config file not passed');
    if (!authorizationModes.includes('Webhook') && values['authorization-webhook-config-file'] !== undefined) throw new Error('cannot specify --authorization-webhook-config-file without mode Webhook');
  }
  const anonymousAuth = booleanFlag('anonymous-auth', values['anonymous-auth']);
  const authenticationConfigFile = absolute(values['authentication-config']);
  const issuers = values['service-account-issuer'] ?? [];
  for (const issuer of issuers) if (issuer === '') throw new Error('service-account-issuer should not be an empty string');
  if (new Set(issuers).size !== issuers.length) throw new Error('service-account-issuer contains duplicate values');
  const maxExpiration = values['service-account-max-token-expiration'];
  const maxTokenExpirationSeconds = maxExpiration === undefined ? undefined : durationMs('service-account-max-token-expiration', maxExpiration, 0) / 1000;
  if (maxTokenExpirationSeconds !== undefined && maxTokenExpirationSeconds !== 0 && maxTokenExpirationSeconds < 3600) {
    throw new Error('service-account-max-token-expiration; the value must be at least 1h or 0 to disable');
  }
  const webhookConfig = absolute(values['authentication-token-webhook-config-file']);
  const authorizationWebhookConfig = absolute(values['authorization-webhook-config-file']);
  return {
    anonymousAuth,
    authenticationConfigFile,
    tokenAuthFile: absolute(values['token-auth-file']),
    enableBootstrapTokenAuth: values['enable-bootstrap-token-auth'] === true,
    serviceAccount: {
      issuers,
      keyFiles: (values['service-account-key-file'] ?? []).map((file) => path.resolve(file)),
      signingKeyFile: absolute(values['service-account-signing-key-file']),
      lookup: booleanFlag('service-account-lookup', values['service-account-lookup']) ?? true,
      maxTokenExpirationSeconds: maxTokenExpirationSeconds === 0 ? undefined : maxTokenExpirationSeconds,
      jwksUri: values['service-account-jwks-uri'],
    },
    apiAudiences: values['api-audiences'] === undefined ? issuers : list(values['api-audiences']),
    requestHeader: requestHeaderFlags(values),
    tokenWebhook: webhookConfig === undefined ? undefined : {
      configFile: webhookConfig,
      version: reviewVersion('authentication-token-webhook-version', values['authentication-token-webhook-version'], 'v1beta1'),
      cacheTtlMs: durationMs('authentication-token-webhook-cache-ttl', values['authentication-token-webhook-cache-ttl'], tokenWebhookCacheTtlMsDefault),
    },
    authorizationModes,
    authorizationConfigFile,
    authorizationPolicyFile: absolute(values['authorization-policy-file']),
    authorizationWebhook: authorizationWebhookConfig === undefined ? undefined : {
      configFile: authorizationWebhookConfig,
      version: reviewVersion('authorization-webhook-version', values['authorization-webhook-version'], 'v1beta1'),
      authorizedTtlMs: durationMs('authorization-webhook-cache-authorized-ttl', values['authorization-webhook-cache-authorized-ttl'], authorizationWebhookAuthorizedTtlMsDefault),
      unauthorizedTtlMs: durationMs('authorization-webhook-cache-unauthorized-ttl', values['authorization-webhook-cache-unauthorized-ttl'], authorizationWebhookUnauthorizedTtlMsDefault),
    },
    enableAdmissionPlugins: list(values['enable-admission-plugins']),
    disableAdmissionPlugins: list(values['disable-admission-plugins']),
  };
}

/**
 * The flags as arguments again, file paths absolute, for `kstore cluster up` to hand every API
 * replica exactly what it was given.
 */
export function authFlagArguments(values: AuthFlagValues): string[] {
  const fileFlags = new Set<string>(['authentication-config', 'token-auth-file', 'service-account-key-file', 'service-account-signing-key-file', 'requestheader-client-ca-file', 'authentication-token-webhook-config-file', 'authorization-config', 'authorization-policy-file', 'authorization-webhook-config-file']);
  const args: string[] = [];
  for (const name of Object.keys(authFlagOptions) as (keyof typeof authFlagOptions)[]) {
    const value = values[name];
    if (value === undefined) continue;
    if (typeof value === 'boolean') {
      if (value) args.push(`--${name}`);
      continue;
    }
    for (const item of Array.isArray(value) ? value : [value]) args.push(`--${name}`, fileFlags.has(name) ? path.resolve(item) : item);
  }
  return args;
}

/** Help text of these flags, shared by the roles' usage. */
export const authFlagsUsage = `  Authentication (kube-apiserver's flags; README "Authentication and authorization"):
  --anonymous-auth <bool> requests no authenticator recognises are system:anonymous (default true,
                          false with --authorization-mode AlwaysAllow)
  --authentication-config <f>
                          AuthenticationConfiguration (apiserver.config.k8s.io/v1beta1): anonymous
                          enabled and the paths it is allowed on; not with --anonymous-auth
  --token-auth-file <f>   static bearer tokens, CSV: token,user,uid[,"group1,group2"]
  --enable-bootstrap-token-auth
                          bootstrap tokens (<id>.<secret>) of kube-system bootstrap-token-<id> Secrets
  --service-account-issuer <url>
                          issuer of service account tokens (repeatable: the first issues, all are
                          accepted; kstore server default https://kubernetes.default.svc.cluster.local)
  --service-account-key-file <f>
                          PEM public or private keys that verify service account tokens (repeatable;
                          default: the signing key)
  --service-account-signing-key-file <f>
                          PEM private key that signs service account tokens (kstore server default:
                          <data-dir>/pki/sa.key, made on first start)
  --service-account-lookup <bool>
                          reject tokens whose account, pod or secret is gone (default true)
  --service-account-max-token-expiration <d>
                          cap on a TokenRequest's expirationSeconds (at least 1h; default none)
  --service-account-jwks-uri <url>
                          jwks_uri of /.well-known/openid-configuration (default <issuer>/openid/v1/jwks)
  --api-audiences <list>  audiences tokens must be meant for (default: the issuers)
  --requestheader-client-ca-file <f>
                          CA of authenticating proxies whose identity headers are trusted
  --requestheader-allowed-names <list>
                          common names such a proxy certificate must have (default: any)
  --requestheader-username-headers <list>, --requestheader-uid-headers <list>,
  --requestheader-group-headers <list>, --requestheader-extra-headers-prefix <list>
                          the headers a trusted proxy names the user with (e.g. X-Remote-User,
                          X-Remote-Uid, X-Remote-Group, X-Remote-Extra-)
  --authentication-token-webhook-config-file <f>
                          kubeconfig of a TokenReview webhook that checks bearer tokens
  --authentication-token-webhook-version <v>
                          v1 or v1beta1 (default v1beta1)
  --authentication-token-webhook-cache-ttl <d>
                          how long webhook answers are cached (default 2m0s)
  Authorization:
  --authorization-mode <list>
                          authorizers in order: AlwaysAllow, AlwaysDeny, ABAC, RBAC, Node, Webhook
                          (default RBAC); system:masters may always do anything
  --authorization-config <f>
                          AuthorizationConfiguration (apiserver.config.k8s.io/v1); reloaded when it
                          changes; not with --authorization-mode or the flags below
  --authorization-policy-file <f>
                          ABAC policy, JSON lines (mode ABAC)
  --authorization-webhook-config-file <f>
                          kubeconfig of a SubjectAccessReview webhook (mode Webhook)
  --authorization-webhook-version <v>
                          v1 or v1beta1 (default v1beta1)
  --authorization-webhook-cache-authorized-ttl <d>, --authorization-webhook-cache-unauthorized-ttl <d>
                          how long allowed and denied answers are cached (defaults 5m0s and 30s)
  --enable-admission-plugins <list>, --disable-admission-plugins <list>
                          admission plugins beyond or out of the default set (e.g. NodeRestriction)
`;
