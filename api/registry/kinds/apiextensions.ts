// Owns: the apiextensions.k8s.io kinds: CustomResourceDefinitions (cluster-scoped, `crd`/`crds`,
// category api-extensions, a status subresource). Their rules are api/crd/definition.ts's; the
// contents of each version's openAPIV3Schema are checked by the structural-schema engine
// (api/crd/structural) and their x-kubernetes-validations rules, cost included, by api/crd/cel.
// The custom kinds a CRD serves are built at run time (api/crd/custom-resource-kind.ts).
import { customResourceDefinitionStrategy } from '../../crd/definition.ts';
import type { SchemaContext } from '../../crd/definition.ts';
import { structuralSchemaCauses } from '../../crd/structural/index.ts';
import { ruleCauses } from '../../crd/cel/index.ts';
import type { CelSchema } from '../../crd/cel/index.ts';
import type { StatusCause } from '../../status.ts';
import { nameColumn, nestedValue, schemaOf, standardVerbs, stringCell } from '../kind.ts';
import type { ResourceKind, TableColumn } from '../kind.ts';

/** kube's default table (no printer of its own): Name and Created At, an RFC 3339 time. */
const createdAtColumn: TableColumn = {
  name: 'Created At', type: 'date', priority: 0,
  description: 'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata',
  cell: (object) => stringCell(nestedValue(object, 'metadata', 'creationTimestamp')),
};

/** One openAPIV3Schema's structural rules, then its CEL rules (compiled only once the schema is structural). */
function schemaCauses(schema: unknown, fieldPath: string, context: SchemaContext): StatusCause[] {
  const structural = structuralSchemaCauses(schema, fieldPath, { statusSubresource: context.statusEnabled });
  if (structural.length > 0) return structural;
  return ruleCauses(schema as CelSchema, fieldPath);
}

export const customResourceDefinitionKind: ResourceKind = {
  group: 'apiextensions.k8s.io', version: 'v1', resource: 'customresourcedefinitions', singular: 'customresourcedefinition',
  kind: 'CustomResourceDefinition', namespaced: false, shortNames: ['crd', 'crds'], categories: ['api-extensions'],
  verbs: standardVerbs, subresources: [{ name: 'status', verbs: ['get', 'patch', 'update'] }],
  nameRule: 'dns1123Subdomain', columns: [nameColumn, createdAtColumn], tableLayout: 'columnsOnly',
  schema: schemaOf('k8s.io.apiextensions_apiserver.pkg.apis.apiextensions.v1.CustomResourceDefinition'),
  strategy: customResourceDefinitionStrategy(schemaCauses),
};

export const apiextensionsKinds: readonly ResourceKind[] = [customResourceDefinitionKind];
