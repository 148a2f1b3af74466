// Owns: the public surface of the structural-schema engine for custom resources (kube 1.33's
// apiextensions-apiserver pkg/apiserver/schema and the kube-openapi validation it runs): CRD
// schema checks, and a custom resource's decoding (pruning, nulls, embedded metadata),
// defaulting and validation. Pure: no I/O, clock or randomness.
export type { ExternalDocumentation, JsonSchemaProps, ValidationRule } from './types.ts';
export { structuralSchemaCauses, isValidStructuralSchema } from './schema-validation.ts';
export type { SchemaCheckOptions } from './schema-validation.ts';
export { validateValue } from './validate.ts';
export { decodeCustomResource, dropNonNullableNulls, pruneUnknownFields } from './prune.ts';
export type { DecodeOptions, DecodeResult } from './prune.ts';
export { applyDefaults } from './defaults.ts';
export { listTypeAt, mapTypeAt, schemaAt } from './list-types.ts';
export { compileGoRegexp } from './regex.ts';
export type { GoRegexp } from './regex.ts';
