// Owns: the Go renderings that kube-apiserver's CustomResourceDefinition messages carry (fmt's
// %q of a string, %#v of a []string, a []byte and the internal versions list, %v of numbers and
// booleans), the StatusCauses in apimachinery field.Error's words built from them, and UTF-8
// byte counts (Go measures and indexes strings in bytes). Pure.
import type { JsonValue } from '../../actors/index.ts';
import type { StatusCause } from '../status.ts';

type Fields = Record<string, JsonValue>;

export { goQuote, isGoPrintable } from '../go-format.ts';
import { goQuote } from '../go-format.ts';

function hex(value: number, width: number): string {
  return value.toString(16).padStart(width, '0');
}

/** The length of a string in UTF-8 bytes (Go's len). */
export function utf8Length(text: string): number {
  let length = 0;
  for (const char of text) {
    const code = char.codePointAt(0)!;
    length += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
  }
  return length;
}

/** %#v of a []string: `[]string{"a", "b"}`, `[]string(nil)` for an absent list. */
export function goStrings(values: readonly string[] | undefined): string {
  return values === undefined ? '[]string(nil)' : `[]string{${values.map(goQuote).join(', ')}}`;
}

/** %#v of a []byte: `[]byte{0x2d, 0x2d}`, `[]byte(nil)` when absent. */
export function goBytes(bytes: Uint8Array | undefined): string {
  return bytes === undefined ? '[]byte(nil)' : `[]byte{${[...bytes].map((byte) => `0x${hex(byte, 2)}`).join(', ')}}`;
}

/** What %#v prints for a set pointer: Go prints its address; kstore prints a fixed one. */
export const goAddress = '0xc000000000';

function goPointer(type: string, set: boolean): string {
  return `(*${type})(${set ? goAddress : 'nil'})`;
}

function stringOf(value: JsonValue | undefined): string {
  return typeof value === 'string' ? value : '';
}

function goSlice(type: string, items: readonly JsonValue[] | undefined, render: (item: Fields) => string): string {
  if (items === undefined) return `[]${type}(nil)`;
  return `[]${type}{${items.map((item) => render(item !== null && typeof item === 'object' && !Array.isArray(item) ? item : {})).join(', ')}}`;
}

/** One version of the internal CustomResourceDefinitionSpec (after v1's per-version fields were hoisted). */
export interface InternalVersion {
  readonly name: string;
  readonly served: boolean;
  readonly storage: boolean;
  readonly deprecated: boolean;
  readonly deprecationWarning: string | undefined;
  /** CustomResourceValidation; undefined is nil. */
  readonly schema: Fields | undefined;
  readonly subresources: Fields | undefined;
  /** undefined is a nil slice. */
  readonly additionalPrinterColumns: readonly JsonValue[] | undefined;
  readonly selectableFields: readonly JsonValue[] | undefined;
}

function goColumn(column: Fields): string {
  const priority = typeof column['priority'] === 'number' ? column['priority'] : 0;
  return `apiextensions.CustomResourceColumnDefinition{Name:${goQuote(stringOf(column['name']))}, Type:${goQuote(stringOf(column['type']))}, `
    + `Format:${goQuote(stringOf(column['format']))}, Description:${goQuote(stringOf(column['description']))}, Priority:${priority}, `
    + `JSONPath:${goQuote(stringOf(column['jsonPath']))}}`;
}

function goVersion(version: InternalVersion): string {
  return `apiextensions.CustomResourceDefinitionVersion{Name:${goQuote(version.name)}, Served:${version.served}, Storage:${version.storage}, `
    + `Deprecated:${version.deprecated}, DeprecationWarning:${goPointer('string', version.deprecationWarning !== undefined)}, `
    + `Schema:${goPointer('apiextensions.CustomResourceValidation', version.schema !== undefined)}, `
    + `Subresources:${goPointer('apiextensions.CustomResourceSubresources', version.subresources !== undefined)}, `
    + `AdditionalPrinterColumns:${goSlice('apiextensions.CustomResourceColumnDefinition', version.additionalPrinterColumns, goColumn)}, `
    + `SelectableFields:${goSlice('apiextensions.SelectableField', version.selectableFields, (field) => `apiextensions.SelectableField{JSONPath:${goQuote(stringOf(field['jsonPath']))}}`)}}`;
}

/** %#v of the internal spec.versions, as kube's "must have exactly one version marked as storage version" prints it. */
export function goVersions(versions: readonly InternalVersion[] | undefined): string {
  return versions === undefined
    ? '[]apiextensions.CustomResourceDefinitionVersion(nil)'
    : `[]apiextensions.CustomResourceDefinitionVersion{${versions.map(goVersion).join(', ')}}`;
}

/** field.Invalid with the value already rendered the way field.Error prints it. */
export function invalidRendered(field: string, rendered: string, detail: string): StatusCause {
  return { reason: 'FieldValueInvalid', message: `Invalid value: ${rendered}: ${detail}`, field };
}

/** field.Invalid of a string value (%q). */
export function invalidText(field: string, value: string, detail: string): StatusCause {
  return invalidRendered(field, goQuote(value), detail);
}

/** field.Duplicate of a string value. */
export function duplicateText(field: string, value: string): StatusCause {
  return { reason: 'FieldValueDuplicate', message: `Duplicate value: ${goQuote(value)}`, field };
}

/** field.TooMany. */
export function tooMany(field: string, actual: number, max: number): StatusCause {
  return { reason: 'FieldValueTooMany', message: `Too many: ${actual}: must have at most ${max} items`, field };
}

/** field.NotSupported of a string value. */
export function notSupportedText(field: string, value: string, supported: readonly string[]): StatusCause {
  return { reason: 'FieldValueNotSupported', message: `Unsupported value: ${goQuote(value)}: supported values: ${supported.map(goQuote).join(', ')}`, field };
}

/**
 * Go's utilerrors.NewAggregate(errs).Error(): one message alone, several (duplicates dropped)
 * as `[a, b]`.
 */
export function aggregateMessage(messages: readonly string[]): string {
  if (messages.length === 1) return messages[0]!;
  const unique = [...new Set(messages)];
  return unique.length === 1 ? unique[0]! : `[${unique.join(', ')}]`;
}
