// Owns: the shape of a CustomResourceDefinition's schema as the engine reads it — apiextensions
// v1 JSONSchemaProps as plain JSON (what `spec.versions[i].schema.openAPIV3Schema` holds).

/** One `x-kubernetes-validations` rule. */
export interface ValidationRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  reason?: string;
  fieldPath?: string;
  optionalOldSelf?: boolean;
}

export interface ExternalDocumentation {
  description?: string;
  url?: string;
}

/**
 * apiextensions.k8s.io/v1 JSONSchemaProps as JSON. The keywords kube refuses in a CRD (`id`,
 * `$schema`, `$ref`, `definitions`, `dependencies`, `patternProperties`, `additionalItems`) are
 * typed too, so a refused schema can be described.
 */
export interface JsonSchemaProps {
  type?: string;
  format?: string;
  title?: string;
  description?: string;
  default?: unknown;
  example?: unknown;
  nullable?: boolean;
  enum?: unknown[];
  maximum?: number;
  exclusiveMaximum?: boolean;
  minimum?: number;
  exclusiveMinimum?: boolean;
  multipleOf?: number;
  maxLength?: number;
  minLength?: number;
  pattern?: string;
  maxItems?: number;
  minItems?: number;
  uniqueItems?: boolean;
  maxProperties?: number;
  minProperties?: number;
  required?: string[];
  properties?: Record<string, JsonSchemaProps>;
  /** A schema (kube refuses the list form; a list found here is reported, not followed). */
  items?: JsonSchemaProps;
  additionalProperties?: JsonSchemaProps | boolean;
  allOf?: JsonSchemaProps[];
  anyOf?: JsonSchemaProps[];
  oneOf?: JsonSchemaProps[];
  not?: JsonSchemaProps;
  externalDocs?: ExternalDocumentation;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-embedded-resource'?: boolean;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-list-type'?: string;
  'x-kubernetes-list-map-keys'?: string[];
  'x-kubernetes-map-type'?: string;
  'x-kubernetes-validations'?: ValidationRule[];
  id?: string;
  $schema?: string;
  $ref?: string;
  definitions?: Record<string, JsonSchemaProps>;
  dependencies?: Record<string, JsonSchemaProps | string[]>;
  patternProperties?: Record<string, JsonSchemaProps>;
  additionalItems?: JsonSchemaProps | boolean;
}
