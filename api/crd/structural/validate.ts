// Owns: a custom resource's value checked against its version's schema, as kube's custom
// resource strategy does on create and update: kube-openapi's schema validation, then the
// embedded resources' apiVersion/kind/metadata rules, then the list-type set/map invariants —
// in that order, each in kube's words. The root's metadata (ObjectMeta rules), apiVersion and
// kind are the caller's; what the schema itself says of them is checked here.
import type { StatusCause } from '../../status.ts';
import { listTypeCauses } from './list-types.ts';
import { compileNode } from './node.ts';
import { embeddedResourcesCauses } from './objectmeta.ts';
import { openApiCauses } from './openapi-validation.ts';
import type { JsonSchemaProps } from './types.ts';

/**
 * The causes kube returns for `value` (a decoded, pruned and defaulted custom resource, or the
 * part of one at `path`) against `schema`. `path` is kube's base field path ("status" for the
 * status subresource's check); without it, errors at the very root are on the field "<nil>", as
 * kube reports them.
 */
export function validateValue(schema: JsonSchemaProps, value: unknown, path?: string): StatusCause[] {
  const node = compileNode(schema);
  const base = path ?? '';
  return [
    ...openApiCauses(node, value, path, 'resource'),
    ...embeddedResourcesCauses(node, value, base),
    ...listTypeCauses(node, value, base),
  ];
}
