// Owns: the public surface of CRD x-kubernetes-validations (CEL) support: compiling a schema's
// rules, the CRD-time checks of those rules, and validating custom resources with them.

export { compileRules, perCallLimit } from './compile.ts';
export type { CompiledExpression, CompiledNode, CompiledRule, CompiledSchemaRules, RuleError } from './compile.ts';
export { ruleCauses, staticEstimatedCostLimit, staticEstimatedCrdCostLimit } from './crd-checks.ts';
export { runtimeCelCostBudget, validateWithRules } from './validate.ts';
export type { ValidateOptions } from './validate.ts';
export { escapeProperty, schemaDeclType } from './schema.ts';
export type { CelSchema, CelValidationRule, DeclKind, DeclType } from './schema.ts';
