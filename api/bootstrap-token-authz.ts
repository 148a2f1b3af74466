// Owns: what an authenticated user who is not in system:masters (a bootstrap token user, until
// RBAC exists) may do: kube's default discovery grants, the system:discovery and
// system:public-info-viewer ClusterRoles bound to system:authenticated — GET of /api, /apis and
// below without a resource, /version, /healthz, /livez, /readyz and /openapi. Anything else gets
// no opinion (403 from the chain). Wired only with --enable-bootstrap-token-auth.
import { authenticatedGroup } from './authn.ts';
import type { Authorizer } from './authz.ts';

const discoveryPaths = ['/api', '/apis', '/version', '/healthz', '/livez', '/readyz', '/openapi'];

function isDiscoveryPath(path: string): boolean {
  return discoveryPaths.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
}

export const discoveryAuthorizer: Authorizer = {
  name: 'system:discovery',
  authorize: (attributes) => (
    !attributes.isResourceRequest && (attributes.verb === 'get' || attributes.verb === 'head')
      && attributes.user.groups.includes(authenticatedGroup) && isDiscoveryPath(attributes.path)
      ? { decision: 'allow', reason: 'RBAC: allowed by ClusterRoleBinding "system:discovery" of ClusterRole "system:discovery" to Group "system:authenticated"' }
      : { decision: 'noOpinion', reason: '' }),
};
