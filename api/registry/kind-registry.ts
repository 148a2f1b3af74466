// Owns: the kinds one API server serves right now: the built-in kinds (kinds.ts, fixed at start)
// and the custom kinds its CustomResourceDefinitions describe (api/crd builds them; they come and
// go at run time). Every lookup of "which kind does this URL name" and every document that lists
// kinds (discovery, OpenAPI) reads one KindRegistry, so a CRD becomes servable everywhere at the
// same moment. Each API server has its own registry (tests run several servers in one process).
import type { ResourceKind } from './kind.ts';
import { servedKinds } from './kinds.ts';

/** What resolving a URL needs: the kind a group, version and resource name. */
export interface KindLookup {
  find(group: string, version: string, resource: string): ResourceKind | undefined;
}

/** What the documents that list kinds need: every kind, and a number that changes when they do. */
export interface KindSource {
  all(): readonly ResourceKind[];
  /** Increases whenever all() would answer differently. */
  generation(): number;
}

function lookupKey(group: string, version: string, resource: string): string {
  return `${group}/${version}/${resource}`;
}

export class KindRegistry implements KindLookup, KindSource {
  readonly #builtin: readonly ResourceKind[];
  readonly #builtinByKey: ReadonlyMap<string, ResourceKind>;
  #custom: readonly ResourceKind[] = [];
  #customByKey = new Map<string, ResourceKind>();
  #all: readonly ResourceKind[];
  #generation = 0;

  constructor(builtin: readonly ResourceKind[] = servedKinds) {
    this.#builtin = builtin;
    this.#builtinByKey = new Map(builtin.map((kind) => [lookupKey(kind.group, kind.version, kind.resource), kind]));
    this.#all = builtin;
  }

  find(group: string, version: string, resource: string): ResourceKind | undefined {
    const key = lookupKey(group, version, resource);
    return this.#builtinByKey.get(key) ?? this.#customByKey.get(key);
  }

  /** Built-in kinds first (discovery order), then the custom kinds in the order given. */
  all(): readonly ResourceKind[] {
    return this.#all;
  }

  custom(): readonly ResourceKind[] {
    return this.#custom;
  }

  generation(): number {
    return this.#generation;
  }

  /**
   * Replaces the custom kinds. A custom kind never shadows a built-in one (kube refuses a CRD
   * in a built-in group at validation; this keeps the registry safe whatever it is given).
   */
  setCustom(kinds: readonly ResourceKind[]): void {
    const accepted = kinds.filter((kind) => !this.#builtinByKey.has(lookupKey(kind.group, kind.version, kind.resource)));
    this.#custom = accepted;
    this.#customByKey = new Map(accepted.map((kind) => [lookupKey(kind.group, kind.version, kind.resource), kind]));
    this.#all = [...this.#builtin, ...accepted];
    this.#generation++;
  }
}
