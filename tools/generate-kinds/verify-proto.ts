// Owns: checking the descriptions built from the Go types against the packages' own
// generated.proto files of the same checkout: the same messages, and per field the same name,
// number, type, repeated-ness and map key. A difference means the generator misread the Go
// source, so the run fails instead of writing a wrong description.
import protobuf from 'protobufjs';
/* eslint-disable kstore/import-boundaries -- the generator writes the values these types describe; a development tool outside the runtime layering */
import type { ApiPackageDescription, FieldDescription } from '../../api/registry/kind-description.ts';
/* eslint-enable kstore/import-boundaries */

/** One field as both sides state it, in a form that compares as text. */
function upstreamShape(field: protobuf.Field): string {
  const type = field.resolvedType ? field.resolvedType.fullName.slice(1) : field.type;
  if (field instanceof protobuf.MapField) return `${field.id} map<${field.keyType}, ${type}>`;
  return `${field.id} ${field.repeated ? 'repeated ' : ''}${type}`;
}

function describedShape(field: FieldDescription): string {
  if (field.mapKey !== undefined) return `${field.number ?? '-'} map<${field.mapKey}, ${field.type}>`;
  return `${field.number ?? '-'} ${field.repeated ? 'repeated ' : ''}${field.type}`;
}

/** The differences, one line each; empty when every package matches its generated.proto. */
export function compareWithGeneratedProto(descriptions: readonly ApiPackageDescription[], protoTexts: readonly string[]): string[] {
  const root = new protobuf.Root();
  for (const text of protoTexts) protobuf.parse(text, root, { keepCase: true });
  root.resolveAll();
  const problems: string[] = [];
  for (const description of descriptions) {
    const namespace = root.lookup(description.protoPackage);
    const upstream = new Map<string, protobuf.Type>();
    if (namespace instanceof protobuf.Namespace) {
      for (const nested of namespace.nestedArray) if (nested instanceof protobuf.Type) upstream.set(nested.fullName.slice(1), nested);
    }
    const described = new Map(description.messages.map((message) => [message.name as string, message]));
    for (const name of upstream.keys()) if (!described.has(name)) problems.push(`${name}: in generated.proto, not described`);
    for (const message of description.messages) {
      const type = upstream.get(message.name);
      if (!type) {
        problems.push(`${message.name}: described, not in generated.proto`);
        continue;
      }
      const describedFields = new Map(message.fields
        .filter((field) => field.number !== undefined)
        .map((field) => [field.protoName ?? field.json ?? '', field]));
      for (const field of type.fieldsArray) {
        const ours = describedFields.get(field.name);
        if (!ours) {
          problems.push(`${message.name}.${field.name}: in generated.proto, not described`);
          continue;
        }
        if (upstreamShape(field) !== describedShape(ours)) {
          problems.push(`${message.name}.${field.name}: generated.proto has ${upstreamShape(field)}, described ${describedShape(ours)}`);
        }
        describedFields.delete(field.name);
      }
      for (const name of describedFields.keys()) problems.push(`${message.name}.${name}: described, not in generated.proto`);
    }
  }
  return problems;
}
