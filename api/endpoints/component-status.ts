// Owns: core/v1 componentstatuses (get and list only; deprecated since v1.19, so every answer
// carries kube's deprecation warning). Nothing is stored: each request checks the components
// the way kube-apiserver's componentstatus REST does, at the time of the request.
//
// What kstore reports (kube reports etcd-0, scheduler and controller-manager): kstore's store
// takes etcd's place, so `etcd-0` is the store's health — Healthy ("ok") when the store has a
// leader and confirms a linearizable read point within 2 s (kube's probe timeout), Unhealthy
// with the reason otherwise. kstore runs no kube-scheduler and no kube-controller-manager to
// probe (its few controllers run inside the server role, not behind a health endpoint this API
// replica can reach), so it lists no scheduler or controller-manager rather than inventing
// their health.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { KubeObject } from '../../actors/index.ts';
import { negotiate } from '../negotiation.ts';
import { partialObjectMetadata, partialObjectMetadataList } from '../partial-metadata.ts';
import { bothMatch, parseFieldSelector, parseLabelSelector } from '../selectors.ts';
import { methodNotAllowed, notFound } from '../status.ts';
import { toTable } from '../table.ts';
import type { EndpointContext, Query } from './context.ts';
import { listOf, respond, sendWarnings } from './context.ts';
import { includeObjectOf } from './get.ts';
import type { Target } from './target.ts';

export const componentStatusDeprecation = 'v1 ComponentStatus is deprecated in v1.19+';

/** How long a component's check may take before it counts as failed (kube's probe timeout). */
export const componentCheckTimeoutMs = 2_000;

export function isComponentStatuses(target: Target): boolean {
  return target.kind.group === '' && target.kind.resource === 'componentstatuses';
}

interface Check {
  readonly status: 'True' | 'False' | 'Unknown';
  readonly message: string;
  readonly error: string;
}

async function withinTimeout<T>(work: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs / 1000}s`)), timeoutMs);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** The store's health: a leader, and a read point confirmed in time. */
async function storeCheck(context: EndpointContext): Promise<Check> {
  if (!context.store.ready()) return { status: 'False', message: '', error: 'the store has no leader' };
  try {
    await withinTimeout(context.store.readIndex(), componentCheckTimeoutMs);
    return { status: 'True', message: 'ok', error: '' };
  } catch (error) {
    return { status: 'False', message: '', error: `the store did not confirm a read point: ${error instanceof Error ? error.message : String(error)}` };
  }
}

const components: readonly { readonly name: string; readonly check: (context: EndpointContext) => Promise<Check> }[] = [
  { name: 'etcd-0', check: storeCheck },
];

function componentStatus(name: string, check: Check): KubeObject {
  const condition = { type: 'Healthy', status: check.status, ...(check.message === '' ? {} : { message: check.message }), ...(check.error === '' ? {} : { error: check.error }) };
  return { apiVersion: 'v1', kind: 'ComponentStatus', metadata: { name }, conditions: [condition] } as unknown as KubeObject;
}

/** GET of componentstatuses (list) or of one (get); every other verb is not served. */
export async function handleComponentStatuses(request: FastifyRequest, reply: FastifyReply, target: Target, context: EndpointContext): Promise<FastifyReply> {
  sendWarnings(reply, [componentStatusDeprecation]);
  if (target.subresource !== undefined) throw notFound({ group: '', resource: `componentstatuses/${target.subresource}` }, target.name ?? '');
  if ((request.method !== 'GET' && request.method !== 'HEAD') || request.requestInfo.verb === 'watch') {
    throw methodNotAllowed('the server does not allow this method on the requested resource');
  }
  const query = request.query as Query;
  const format = negotiate(request.headers.accept, true);
  const name = target.name;
  if (name !== undefined) {
    const component = components.find((candidate) => candidate.name === name);
    if (component === undefined) throw notFound({ group: '', resource: 'componentstatuses' }, name);
    const object = componentStatus(name, await component.check(context));
    if (format.type === 'table') return respond(request, reply, 200, toTable(target.kind, [object], { includeObject: includeObjectOf(query), listMeta: {} }), { type: 'json' });
    if (format.type === 'metadata') return respond(request, reply, 200, partialObjectMetadata(format, target.kind, object), format);
    return respond(request, reply, 200, object, format);
  }
  const options = request.requestInfo.options;
  const selector = bothMatch(parseLabelSelector(options.labelSelector), parseFieldSelector(options.fieldSelector, target.kind.fieldSelectors));
  const checked = await Promise.all(components.map(async (component) => componentStatus(component.name, await component.check(context))));
  const items = checked.filter((item) => selector.matches(item));
  if (format.type === 'table') return respond(request, reply, 200, toTable(target.kind, items, { includeObject: includeObjectOf(query), listMeta: {} }), { type: 'json' });
  if (format.type === 'metadata') return respond(request, reply, 200, partialObjectMetadataList(format, target.kind, items, {}), format);
  return respond(request, reply, 200, listOf(target.kind, items, {}), format);
}
