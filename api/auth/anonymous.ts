// Owns: anonymous requests (--anonymous-auth, and the `anonymous` part of
// --authentication-config; kube's staging/src/k8s.io/apiserver/pkg/authentication/request/anonymous).
// A request that no authenticator recognised (none found credentials; a rejected credential is
// a 401 and never anonymous — authn.ts decides that) is user system:anonymous in group
// system:unauthenticated, when anonymous auth is enabled and, if paths are configured, the
// request's path is exactly one of them (the query string is not part of the path). Also the
// effective --anonymous-auth: its default is true, and kube-apiserver turns it off (with a
// warning) whenever --authorization-mode includes AlwaysAllow, even when it was given as true.
import type { FastifyRequest } from 'fastify';
import type { UserInfo } from './authn.ts';

export const anonymousUserName = 'system:anonymous';
export const unauthenticatedGroup = 'system:unauthenticated';

/** The anonymous identity (no uid, no extra, and never system:authenticated); a fresh object per call. */
export function anonymousUser(): UserInfo {
  return { name: anonymousUserName, uid: '', groups: [unauthenticatedGroup], extra: {} };
}

/** How anonymous requests are treated (kube's AnonymousAuthConfig, conditions flattened to paths). */
export interface AnonymousAuthConfig {
  readonly enabled: boolean;
  /** Exact request paths anonymous requests are allowed on; absent or empty: every path. */
  readonly paths?: readonly string[];
}

/** --anonymous-auth's default before kube-apiserver applies the authorization modes. */
export const anonymousAuthFlagDefault = true;

/** kube-apiserver's warning when AlwaysAllow turns anonymous auth off. */
export const anonymousWithAlwaysAllowWarning =
  'AnonymousAuth is not allowed with the AlwaysAllow authorizer. Resetting AnonymousAuth to false. You should use a different authorizer';

/**
 * --anonymous-auth after kube-apiserver's ApplyAuthorization: the flag's value (true when not
 * given), turned off with a warning when the authorization modes include AlwaysAllow.
 * (It does not apply to an AuthenticationConfiguration's anonymous part, which wins over the flag.)
 */
export function effectiveAnonymousAuth(
  flag: boolean | undefined, authorizationModes: readonly string[],
): { readonly enabled: boolean; readonly warning?: string } {
  const allow = flag ?? anonymousAuthFlagDefault;
  if (allow && authorizationModes.includes('AlwaysAllow')) return { enabled: false, warning: anonymousWithAlwaysAllowWarning };
  return { enabled: allow };
}

/** The request's path as Go's URL.Path holds it: without the query, percent-escapes decoded. */
export function requestPath(request: FastifyRequest): string {
  const raw = request.raw.url ?? request.url;
  const query = raw.indexOf('?');
  const path = query < 0 ? raw : raw.slice(0, query);
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

/** Whether an unrecognised request may be anonymous under `config`. */
export function allowsAnonymous(config: AnonymousAuthConfig, path: string): boolean {
  if (!config.enabled) return false;
  const paths = config.paths ?? [];
  return paths.length === 0 || paths.includes(path);
}

/** The anonymous user for `request`, or undefined when anonymous access does not apply to it. */
export function anonymousUserFor(config: AnonymousAuthConfig | undefined, request: FastifyRequest): UserInfo | undefined {
  if (config === undefined) return undefined;
  return allowsAnonymous(config, requestPath(request)) ? anonymousUser() : undefined;
}
