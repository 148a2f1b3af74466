// Owns: kube-apiserver's priority-and-fairness-config-producer post-start hook for every API
// server, and the start of the control-plane configuration kstore keeps (this and the local
// APIServices of apiservice-bootstrap.ts). kube's bootstrap FlowSchemas and
// PriorityLevelConfigurations (api/registry/apf-bootstrap-configuration.ts) are created when
// missing; a mandatory one (exempt, catch-all) always gets its fixed spec back (the exempt
// level keeps the shares the operator set); a suggested one gets the bootstrap spec while its
// apf.kubernetes.io/autoupdate-spec annotation is "true" (no annotation: while generation is 1,
// and the annotation is then written), and is left alone when "false"; an object carrying the
// annotation "true" that is no longer in the configuration is deleted. Each FlowSchema's
// Dangling condition says whether its priority level exists (kube's MissingPL column). Done at
// start, then every minute. Priority and fairness is not enforced (a later issue).
import { randomUUID } from 'node:crypto';
import {
  apfAutoUpdateAnnotation, defaultFlowSchemaSpec, defaultPriorityLevelSpec, formatTime, mandatoryFlowSchemas, mandatoryPriorityLevels,
  sameApfSpec, suggestedFlowSchemas, suggestedPriorityLevels,
} from '../api/index.ts';
import type { ApfBootstrapObject, StoreClient } from '../api/index.ts';
import type { JsonValue, KubeObject, ObjectKey } from '../actors/index.ts';
import { ensureLocalApiServices } from './apiservice-bootstrap.ts';

const group = 'flowcontrol.apiserver.k8s.io';
const identity = 'system:apiserver';

type Fields = Record<string, JsonValue>;

interface ApfKind {
  readonly resource: 'flowschemas' | 'prioritylevelconfigurations';
  readonly kind: 'FlowSchema' | 'PriorityLevelConfiguration';
  readonly defaults: (spec: Fields) => Fields;
}

const flowSchemas: ApfKind = { resource: 'flowschemas', kind: 'FlowSchema', defaults: defaultFlowSchemaSpec };
const priorityLevels: ApfKind = { resource: 'prioritylevelconfigurations', kind: 'PriorityLevelConfiguration', defaults: defaultPriorityLevelSpec };

function keyOf(kind: ApfKind, name: string): ObjectKey {
  return { group, resource: kind.resource, namespace: '', name };
}

function specOf(object: KubeObject): Fields {
  const spec = object['spec'];
  return spec !== null && typeof spec === 'object' && !Array.isArray(spec) ? spec as Fields : {};
}

/** strconv.ParseBool's values. */
function parseBool(value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value)) return false;
  return undefined;
}

/** The spec a mandatory object must have: the exempt level keeps the shares and lendable percent set on it. */
function mandatorySpec(kind: ApfKind, wanted: ApfBootstrapObject, current: KubeObject): Fields {
  const spec = kind.defaults(structuredClone(wanted.spec));
  const currentExempt = specOf(current)['exempt'];
  if (kind === priorityLevels && wanted.metadata.name === 'exempt' && currentExempt !== null && typeof currentExempt === 'object') {
    return kind.defaults({ ...spec, exempt: currentExempt });
  }
  return spec;
}

/** kube's ensure strategy: the updated object, or undefined when the stored one is as it should be. */
export function reconcileApfObject(kind: ApfKind, wanted: ApfBootstrapObject, current: KubeObject, mandatory: boolean): KubeObject | undefined {
  const annotation = current.metadata.annotations?.[apfAutoUpdateAnnotation];
  const autoUpdate = mandatory || (parseBool(annotation) ?? current.metadata.generation === 1);
  const annotationStale = parseBool(annotation) !== autoUpdate;
  const spec = mandatory ? mandatorySpec(kind, wanted, current) : kind.defaults(structuredClone(wanted.spec));
  const specChanged = autoUpdate && !sameApfSpec(specOf(current), spec);
  if (!annotationStale && !specChanged) return undefined;
  const object = structuredClone(current);
  if (annotationStale) object.metadata.annotations = { ...(object.metadata.annotations ?? {}), [apfAutoUpdateAnnotation]: String(autoUpdate) };
  if (specChanged) {
    object['spec'] = spec;
    object.metadata.generation = (current.metadata.generation ?? 1) + 1;
  }
  return object;
}

async function ensureOne(client: StoreClient, kind: ApfKind, wanted: ApfBootstrapObject, mandatory: boolean): Promise<void> {
  const key = keyOf(kind, wanted.metadata.name);
  const current = client.get(key);
  const at = formatTime(new Date());
  if (current === undefined) {
    const object = {
      apiVersion: `${group}/v1`, kind: kind.kind,
      metadata: { name: wanted.metadata.name, annotations: { ...wanted.metadata.annotations }, uid: randomUUID(), creationTimestamp: at, generation: 1 },
      spec: kind.defaults(structuredClone(wanted.spec)),
      status: {},
    } as unknown as KubeObject;
    const result = await client.propose({ type: 'create', key, object, at, by: identity });
    if (result.type !== 'stored' && result.type !== 'alreadyExists') throw new Error(`could not create ${kind.resource} ${wanted.metadata.name}: ${result.type}`);
    return;
  }
  if (current.metadata.deletionTimestamp !== undefined) return;
  const object = reconcileApfObject(kind, wanted, current, mandatory);
  if (object === undefined) return;
  const result = await client.propose({ type: 'update', key, object, at, by: identity, preconditions: { resourceVersion: current.metadata.resourceVersion ?? '' } });
  if (result.type !== 'stored' && result.type !== 'conflict') throw new Error(`could not update ${kind.resource} ${wanted.metadata.name}: ${result.type}`);
}

/** Deletes objects annotated for auto-update that the configuration no longer has (kube's removeConfiguration). */
async function removeStale(client: StoreClient, kind: ApfKind, configuration: readonly ApfBootstrapObject[]): Promise<void> {
  const names = new Set(configuration.map((object) => object.metadata.name));
  for (const current of client.list({ group, resource: kind.resource, namespace: '' }).items) {
    const name = current.metadata.name ?? '';
    if (names.has(name) || parseBool(current.metadata.annotations?.[apfAutoUpdateAnnotation]) !== true) continue;
    const result = await client.propose({ type: 'delete', key: keyOf(kind, name), at: formatTime(new Date()), by: identity, preconditions: { uid: current.metadata.uid ?? '' } });
    if (!['removed', 'finalizing', 'notFound', 'conflict'].includes(result.type)) throw new Error(`could not delete ${kind.resource} ${name}: ${result.type}`);
  }
}

/** The Dangling condition a FlowSchema should carry, given whether its priority level exists. */
export function danglingCondition(levelName: string, exists: boolean, at: string): Fields {
  return exists
    ? { type: 'Dangling', status: 'False', lastTransitionTime: at, reason: 'Found', message: `This FlowSchema references the PriorityLevelConfiguration object named ${JSON.stringify(levelName)} and it exists` }
    : { type: 'Dangling', status: 'True', lastTransitionTime: at, reason: 'NotFound', message: `This FlowSchema references the PriorityLevelConfiguration object named ${JSON.stringify(levelName)} but there is no such object` };
}

/** Sets each FlowSchema's Dangling condition where it is missing or out of date. */
async function updateDangling(client: StoreClient): Promise<void> {
  const levels = new Set(client.list({ group, resource: priorityLevels.resource, namespace: '' }).items.map((level) => level.metadata.name));
  for (const schema of client.list({ group, resource: flowSchemas.resource, namespace: '' }).items) {
    if (schema.metadata.deletionTimestamp !== undefined) continue;
    const levelName = String((specOf(schema)['priorityLevelConfiguration'] as Fields | undefined)?.['name'] ?? '');
    const at = formatTime(new Date());
    const wanted = danglingCondition(levelName, levels.has(levelName), at);
    const status = (schema['status'] ?? {}) as Fields;
    const conditions = Array.isArray(status['conditions']) ? status['conditions'] as Fields[] : [];
    const present = conditions.find((condition) => condition['type'] === 'Dangling');
    if (present !== undefined && present['status'] === wanted['status'] && present['reason'] === wanted['reason'] && present['message'] === wanted['message']) continue;
    const condition = present !== undefined && present['status'] === wanted['status'] ? { ...wanted, lastTransitionTime: present['lastTransitionTime'] ?? at } : wanted;
    const object = structuredClone(schema);
    object['status'] = { ...status, conditions: [...conditions.filter((item) => item['type'] !== 'Dangling'), condition] };
    const result = await client.propose({ type: 'update', key: keyOf(flowSchemas, schema.metadata.name ?? ''), object, at, by: identity, preconditions: { resourceVersion: schema.metadata.resourceVersion ?? '' } });
    if (result.type !== 'stored' && result.type !== 'conflict' && result.type !== 'notFound') throw new Error(`could not update flowschemas ${schema.metadata.name ?? ''} status: ${result.type}`);
  }
}

/** One round of kube's APF config producer: suggested, then mandatory, then removals; then the Dangling conditions. */
export async function ensureFlowcontrolBootstrap(client: StoreClient): Promise<void> {
  await client.readIndex();
  for (const level of suggestedPriorityLevels) await ensureOne(client, priorityLevels, level, false);
  for (const schema of suggestedFlowSchemas) await ensureOne(client, flowSchemas, schema, false);
  for (const level of mandatoryPriorityLevels) await ensureOne(client, priorityLevels, level, true);
  for (const schema of mandatoryFlowSchemas) await ensureOne(client, flowSchemas, schema, true);
  await removeStale(client, priorityLevels, [...mandatoryPriorityLevels, ...suggestedPriorityLevels]);
  await removeStale(client, flowSchemas, [...mandatoryFlowSchemas, ...suggestedFlowSchemas]);
  await updateDangling(client);
}

export const flowcontrolBootstrapIntervalMs = 60_000;
export const flowcontrolBootstrapRetryMs = 1_000;

/**
 * Starts the control-plane configuration: the local APIServices once and the APF bootstrap
 * configuration, retried every second until both are done (an API replica may start before the
 * store has a leader); the returned promise settles then. The APF configuration is then kept
 * every minute for the life of the process (its timer does not hold the process open).
 */
export function startControlPlaneConfiguration(client: StoreClient, log: (message: string) => void): Promise<void> {
  let lastProblem = '';
  let apiServicesDone = false;
  return new Promise((resolve) => {
    let started = false;
    const schedule = (delayMs: number): void => {
      setTimeout(attempt, delayMs).unref();
    };
    function attempt(): void {
      const round = async (): Promise<void> => {
        if (!apiServicesDone) {
          await ensureLocalApiServices(client);
          apiServicesDone = true;
        }
        await ensureFlowcontrolBootstrap(client);
      };
      round().then(() => {
        lastProblem = '';
        if (!started) {
          started = true;
          resolve();
        }
        schedule(flowcontrolBootstrapIntervalMs);
      }, (error: unknown) => {
        const problem = error instanceof Error ? error.message : String(error);
        if (problem !== lastProblem) log(`control-plane configuration (APF bootstrap, APIServices): ${problem}; retrying`);
        lastProblem = problem;
        schedule(started ? flowcontrolBootstrapIntervalMs : flowcontrolBootstrapRetryMs);
      });
    }
    attempt();
  });
}
