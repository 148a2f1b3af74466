// Owns: the shape of kstore's JSON schemas (JsonSchema: ajv's draft-07 subset, also what the
// OpenAPI documents, strict field validation, strategic merge and server-side apply read), the
// kube extensions they carry, and walking one by field path. Every served kind's schema is built
// from its generated description (schema-from-description.ts), never written by hand.
// Type-level structure only ("is data a map of strings"); semantic rules such as required
// fields and name formats live in the kind's strategy, so a wrong type is a decode error (400)
// and a missing field a validation error (422), as in kube-apiserver.

type ScalarType = 'object' | 'string' | 'integer' | 'number' | 'boolean' | 'array';

export interface JsonSchema {
  /**
   * A list is nullable (`['string', 'null']`), int-or-string (`['integer', 'string']`, intstr.IntOrString)
   * or a quantity (`['number', 'string']`, resource.Quantity: `cpu: 0.5` and `cpu: 500m` both decode).
   */
  type?: ScalarType | ('string' | 'null')[] | ('integer' | 'string')[] | ('number' | 'string')[];
  format?: string;
  description?: string;
  properties?: Record<string, JsonSchema>;
  additionalProperties?: JsonSchema | boolean;
  items?: JsonSchema;
  required?: string[];
  /**
   * The fields kube's OpenAPI marks required (no omitempty, or +required): published as the
   * OpenAPI `required` (kubectl explain's "-required-"), not enforced by ajv: a missing field
   * is the strategy's 422, as in kube-apiserver.
   */
  requiredFields?: readonly string[];
  /**
   * The kube OpenAPI definition this node is (e.g. `io.k8s.api.core.v1.Probe`): the OpenAPI
   * documents publish it once under that name and refer to it; ajv ignores it.
   */
  definition?: string | undefined;
  /**
   * The values of a string enum (a Go string type marked +enum): published as the OpenAPI `enum`
   * (kubectl explain lists them), not enforced by ajv: kube checks them in validation (422), and
   * a value newer than this server is not a decode error.
   */
  enumValues?: readonly string[];
  /** kube's list and map extensions, published as they are in OpenAPI v2 and v3. */
  'x-kubernetes-list-type'?: 'atomic' | 'set' | 'map';
  'x-kubernetes-list-map-keys'?: readonly string[];
  'x-kubernetes-map-type'?: 'atomic' | 'granular';
  /**
   * A custom resource's schema node that keeps fields it does not declare: server-side apply
   * treats what it does not declare as structured-merge-diff's deduced type (maps merged key by
   * key, lists atomic).
   */
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  /** Strategic merge patch metadata (kubectl apply builds its patches from these). */
  'x-kubernetes-patch-merge-key'?: string;
  'x-kubernetes-patch-strategy'?: string;
}

/** The extensions toOpenApiSchema copies into the OpenAPI documents. */
export const schemaExtensions = [
  'x-kubernetes-list-type', 'x-kubernetes-list-map-keys', 'x-kubernetes-map-type', 'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-patch-merge-key', 'x-kubernetes-patch-strategy',
] as const satisfies readonly (keyof JsonSchema)[];

export function at(schema: JsonSchema | undefined, ...path: string[]): JsonSchema | undefined {
  let node = schema;
  for (const name of path) {
    if (node?.type === 'array') node = node.items;
    node = node?.properties?.[name];
  }
  return node?.type === 'array' ? node.items : node;
}
