// Owns: the Go types that write JSON of their own (they have a MarshalJSON method, or embed a
// type that has one) and the JSON form each one has in the description. The generator fails on
// a message type with a MarshalJSON method missing here, so a new one cannot slip through as
// "an object of its fields".
/* eslint-disable kstore/import-boundaries -- the generator writes the values these types describe; a development tool outside the runtime layering */
import type { JsonForm } from '../../api/registry/kind-description.ts';
/* eslint-enable kstore/import-boundaries */

const meta = 'k8s.io/apimachinery/pkg/apis/meta/v1';
const runtime = 'k8s.io/apimachinery/pkg/runtime';
const apiextensions = 'k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1';

/** `<import path>.<type name>` → JSON form. */
export const customJsonForms: ReadonlyMap<string, JsonForm> = new Map<string, JsonForm>([
  [`${meta}.Time`, 'time'],
  [`${meta}.MicroTime`, 'microTime'],
  [`${meta}.Duration`, 'duration'],
  [`${meta}.FieldsV1`, 'fieldsV1'],
  [`${meta}.GroupVersion`, 'groupVersion'],
  [`${runtime}.RawExtension`, 'rawExtension'],
  [`${runtime}.Unknown`, 'unknown'],
  ['k8s.io/apimachinery/pkg/util/intstr.IntOrString', 'intOrString'],
  ['k8s.io/apimachinery/pkg/api/resource.Quantity', 'quantity'],
  // Embeds Quantity, so it has Quantity's MarshalJSON.
  ['k8s.io/apimachinery/pkg/api/resource.QuantityValue', 'quantity'],
  // apiextensions.k8s.io/v1's schema types: any JSON value, and the three "X or Y" values of JSONSchemaProps.
  [`${apiextensions}.JSON`, 'json'],
  [`${apiextensions}.JSONSchemaPropsOrArray`, 'schemaOrArray'],
  [`${apiextensions}.JSONSchemaPropsOrBool`, 'schemaOrBool'],
  [`${apiextensions}.JSONSchemaPropsOrStringArray`, 'schemaOrStringArray'],
]);
