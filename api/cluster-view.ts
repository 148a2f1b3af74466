// Owns: `GET /kstore/cluster` — what the console's cluster page (and any tool) shows of the
// deployment: each store member's role, term, commit and applied index, and the API replicas
// with their revision and readiness. The data comes from the role that runs the server
// (kstore server: its one member and itself; kstore api: the members' status over NATS and the
// replicas' announcements). A non-resource path behind the same authentication and
// authorization as everything else (like /metrics).
import type { FastifyInstance } from 'fastify';
import fastifyPlugin from 'fastify-plugin';
import type { ApiReplicaView, ClusterView, StoreMemberView } from './console/view-types.ts';

export const clusterViewPath = '/kstore/cluster';

export type { ApiReplicaView, ClusterView, StoreMemberView } from './console/view-types.ts';

export function clusterView(members: readonly StoreMemberView[], replicas: readonly ApiReplicaView[]): ClusterView {
  const newestTerm = Math.max(0, ...members.map((member) => member.term));
  const leader = members.find((member) => member.role === 'leader' && member.term === newestTerm)?.id;
  return { kind: 'ClusterStatus', apiVersion: 'kstore.k8s.io/v1alpha1', leader, members: [...members].sort((a, b) => a.id.localeCompare(b.id)), replicas };
}

async function clusterViewPluginBody(app: FastifyInstance, options: { readonly view: () => ClusterView }): Promise<void> {
  app.get(clusterViewPath, async (_request, reply) => reply.type('application/json').send(JSON.stringify(options.view())));
}

export const clusterViewPlugin = fastifyPlugin(clusterViewPluginBody, { name: 'kstore-cluster-view', fastify: '5.x', dependencies: ['kstore-authn'] });
