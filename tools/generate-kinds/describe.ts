// Owns: turning parsed Go packages into kstore's descriptions: which types are protobuf messages,
// each field's protobuf number, type and label (checked against its Go type), its JSON facts
// (name, omitempty, inline, pointer), the list/map/struct/patch markers and tags, enum values of
// `+enum` string types, the JSON forms of special types, and each package's top-level kinds with
// their `+genclient` and `+k8s:prerelease-lifecycle-gen` facts.
// Everything it writes is a name, a number or a marker value; comment prose is never read.
/* eslint-disable kstore/import-boundaries -- the generator writes the values these types describe; a development tool outside the runtime layering */
import type {
  ApiPackageDescription, ClientDescription, ClientMethod, FieldDescription, FieldValueType, JsonForm, KindDescription,
  ListType, MergeGranularity, MessageDescription, MessageName, PatchStrategy, PrereleaseLifecycle, ProtoScalarType, RemovedField,
} from '../../api/registry/kind-description.ts';
/* eslint-enable kstore/import-boundaries */
import type { GoConstant, GoConstValue, GoField, GoMarker, GoPackage, GoStructDeclaration, GoTypeDeclaration } from './go-source.ts';
import { customJsonForms } from './json-forms.ts';
import type { PackageSource } from './sources.ts';

/** Go's predeclared types that map to a protobuf scalar (`int` is encoded as a 64-bit varint). */
const goScalars: ReadonlyMap<string, ProtoScalarType> = new Map<string, ProtoScalarType>([
  ['string', 'string'], ['bool', 'bool'], ['int32', 'int32'], ['int64', 'int64'], ['int', 'int64'],
  ['uint32', 'uint32'], ['uint64', 'uint64'], ['float64', 'double'], ['float32', 'float'],
]);

/** Types of Go's standard library that API types embed or hold. */
const standardLibraryScalars: ReadonlyMap<string, ProtoScalarType> = new Map<string, ProtoScalarType>([['time.Duration', 'int64']]);

/** The protobuf wire type each scalar is written with (the first word of a `protobuf:` tag). */
const wireTypes: Record<ProtoScalarType, string> = {
  string: 'bytes', bytes: 'bytes', bool: 'varint', int32: 'varint', int64: 'varint', uint32: 'varint', uint64: 'varint', double: 'fixed64', float: 'fixed32',
};

/** A Go type expression resolved to what protobuf and JSON make of it. */
interface ResolvedType {
  readonly type: FieldValueType;
  readonly repeated: boolean;
  readonly mapKey: ProtoScalarType | undefined;
  readonly pointer: boolean;
  readonly enumValues: readonly string[] | undefined;
  readonly jsonForm: JsonForm | undefined;
}

/** A declaration with the package it is declared in. */
interface Located<T> {
  readonly pkg: GoPackage;
  readonly declaration: T;
}

interface ProtobufTag {
  readonly wireType: string;
  readonly number: number;
  readonly label: 'opt' | 'rep' | 'req' | undefined;
  readonly name: string | undefined;
}

interface JsonTag {
  /** Undefined for `json:"-"`. */
  readonly name: string | undefined;
  readonly omitEmpty: boolean;
  readonly inline: boolean;
}

export class DescriptionError extends Error {
  override readonly name = 'DescriptionError';
}

function compareText(left: string, right: string): number {
  return left < right ? -1 : left > right ? 1 : 0;
}

function markerValues(markers: readonly GoMarker[], name: string): string[] {
  return markers.filter((marker) => marker.name === name).map((marker) => marker.value ?? '');
}

function hasMarker(markers: readonly GoMarker[], name: string): boolean {
  return markers.some((marker) => marker.name === name);
}

/** The single value of a marker, failing when it is given twice with different values. */
function singleMarker(markers: readonly GoMarker[], name: string, where: string): string | undefined {
  const values = [...new Set(markerValues(markers, name))];
  if (values.length > 1) throw new DescriptionError(`${where}: +${name} given as ${values.join(' and ')}`);
  return values[0];
}

function oneOf<T extends string>(value: string | undefined, allowed: readonly T[], what: string, where: string): T | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) throw new DescriptionError(`${where}: unexpected ${what} ${JSON.stringify(value)}`);
  return value as T;
}

/** go-to-protobuf's package name: the import path with dots for slashes and underscores for dashes (k8s.io/kube-aggregator → k8s.io.kube_aggregator). */
function protoPackageOf(importPath: string): string {
  return importPath.replaceAll('/', '.').replaceAll('-', '_');
}

function messageNameOf(importPath: string, typeName: string): MessageName {
  const name = `${protoPackageOf(importPath)}.${typeName}`;
  if (!name.startsWith('k8s.io.')) throw new DescriptionError(`${name}: not a Kubernetes package`);
  return name as MessageName;
}

function parseProtobufTag(text: string, where: string): ProtobufTag | '-' {
  if (text === '-') return '-';
  const [wireType, number, ...options] = text.split(',');
  const parsedNumber = Number(number);
  if (wireType === undefined || !Number.isInteger(parsedNumber) || parsedNumber <= 0) throw new DescriptionError(`${where}: unreadable protobuf tag ${text}`);
  let label: ProtobufTag['label'];
  let name: string | undefined;
  for (const option of options) {
    if (option === 'opt' || option === 'rep' || option === 'req') label = option;
    else if (option.startsWith('name=')) name = option.slice('name='.length);
  }
  return { wireType, number: parsedNumber, label, name };
}

function parseJsonTag(text: string | undefined, goName: string | undefined): JsonTag {
  if (text === undefined) return { name: goName, omitEmpty: false, inline: goName === undefined };
  if (text === '-') return { name: undefined, omitEmpty: false, inline: false };
  const [name, ...options] = text.split(',');
  const inline = options.includes('inline');
  return {
    name: inline ? undefined : name === '' || name === undefined ? goName : name,
    omitEmpty: options.includes('omitempty') || options.includes('omitzero'),
    inline,
  };
}

function lowerFirst(name: string): string {
  return name.slice(0, 1).toLowerCase() + name.slice(1);
}

/** Splits `map[K]V` into K and V (K may itself hold brackets). */
function splitMapType(expression: string, where: string): { key: string; value: string } {
  let depth = 0;
  for (let index = 'map['.length; index < expression.length; index++) {
    const char = expression[index];
    if (char === '[') depth++;
    else if (char === ']') {
      if (depth === 0) return { key: expression.slice('map['.length, index), value: expression.slice(index + 1) };
      depth--;
    }
  }
  throw new DescriptionError(`${where}: unreadable map type ${expression}`);
}

/** Describes Go packages; one instance holds every package so references across packages resolve. */
export class PackageDescriber {
  private readonly packages: ReadonlyMap<string, GoPackage>;
  private readonly sources: ReadonlyMap<string, PackageSource>;
  /** Oddities of the Go source that do not change the description (printed by the command). */
  readonly notes: string[] = [];

  constructor(packages: readonly GoPackage[], sources: readonly PackageSource[]) {
    this.packages = new Map(packages.map((pkg) => [pkg.importPath, pkg]));
    this.sources = new Map(sources.map((source) => [source.importPath, source]));
  }

  private packageAt(importPath: string, where: string): GoPackage {
    const pkg = this.packages.get(importPath);
    if (!pkg) throw new DescriptionError(`${where}: package ${importPath} is not read by the generator (add it to sources.ts)`);
    return pkg;
  }

  private declarationOf(pkg: GoPackage, name: string, where: string): GoTypeDeclaration {
    const declaration = pkg.types.get(name);
    if (!declaration) throw new DescriptionError(`${where}: no type ${name} in ${pkg.importPath}`);
    return declaration;
  }

  /** Resolves `Name` or `pkg.Name`, as written in a file with the given imports, to its declaration. */
  private locate(expression: string, pkg: GoPackage, imports: ReadonlyMap<string, string>, where: string): Located<GoTypeDeclaration> {
    const qualified = /^(\w+)\.(\w+)$/.exec(expression);
    if (qualified) {
      const importPath = imports.get(qualified[1]!);
      if (!importPath) throw new DescriptionError(`${where}: unknown package ${qualified[1]!}`);
      const target = this.packageAt(importPath, where);
      return { pkg: target, declaration: this.declarationOf(target, qualified[2]!, where) };
    }
    return { pkg, declaration: this.declarationOf(pkg, expression, where) };
  }

  /** The struct a struct-like type declares its fields in (`type List metav1.List` → metav1.List). */
  private structOf(located: Located<GoTypeDeclaration>, where: string): Located<GoStructDeclaration> | undefined {
    const { pkg, declaration } = located;
    if (declaration.form === 'struct') return { pkg, declaration };
    const target = declaration.form === 'alias' ? declaration.target : declaration.underlying;
    if (!/^(\w+\.)?[A-Z]\w*$/.test(target)) return undefined;
    return this.structOf(this.locate(target, pkg, declaration.imports, where), where);
  }

  /** Whether go-to-protobuf makes a message of the type (the rules of kube's generated.proto files). */
  isMessage(pkg: GoPackage, declaration: GoTypeDeclaration): boolean {
    if (!/^[A-Z]/.test(declaration.name)) return false;
    const protobufMarker = singleMarker(declaration.markers, 'protobuf', declaration.where);
    if (protobufMarker === 'false') return false;
    if (this.sources.get(pkg.importPath)?.protobufOptIn && protobufMarker !== 'true') return false;
    if (declaration.form === 'alias') return false;
    if (declaration.form === 'struct') return true;
    if (/^\[\]|^map\[/.test(declaration.underlying)) return singleMarker(declaration.markers, 'protobuf.nullable', declaration.where) === 'true';
    return this.structOf({ pkg, declaration }, declaration.where) !== undefined;
  }

  private jsonFormOf(pkg: GoPackage, declaration: GoTypeDeclaration): JsonForm | undefined {
    const form = customJsonForms.get(`${pkg.importPath}.${declaration.name}`);
    if (form === undefined && pkg.methods.get(declaration.name)?.has('MarshalJSON')) {
      throw new DescriptionError(`${declaration.where}: ${declaration.name} writes JSON of its own; add its form to json-forms.ts`);
    }
    if (form === undefined && declaration.form === 'named' && /^\[\]/.test(declaration.underlying)) return 'array';
    return form;
  }

  /** A constant's value, following `Other` and `pkg.Other` to the constant they name. */
  private constantValue(pkg: GoPackage, constant: GoConstant, hops: number): GoConstValue {
    const value = constant.value;
    if (value.form !== 'identifier' || hops > 5) return value;
    const qualified = /^(\w+)\.(\w+)$/.exec(value.name);
    const targetPackage = qualified ? this.packages.get(constant.imports.get(qualified[1]!) ?? '') : pkg;
    const target = targetPackage?.constants.get(qualified ? qualified[2]! : value.name);
    return target && targetPackage ? this.constantValue(targetPackage, target, hops + 1) : value;
  }

  /** The sorted values of a `+enum` string type's typed constants. */
  private enumValues(pkg: GoPackage, typeName: string): string[] {
    const values = new Set<string>();
    const aliases = new Set([typeName, ...[...pkg.types.values()].filter((declaration) => declaration.form === 'alias' && declaration.target === typeName).map((declaration) => declaration.name)]);
    for (const constant of pkg.constants.values()) {
      if (constant.type === undefined || !aliases.has(constant.type)) continue;
      const value = this.constantValue(pkg, constant, 0);
      if (value.form !== 'string') throw new DescriptionError(`${pkg.importPath}: enum constant ${constant.name} has no string value`);
      values.add(value.value);
    }
    if (values.size === 0) throw new DescriptionError(`${pkg.importPath}: +enum type ${typeName} has no constants`);
    return [...values].sort(compareText);
  }

  /** Resolves a field's Go type expression. */
  private resolve(expression: string, pkg: GoPackage, imports: ReadonlyMap<string, string>, where: string): ResolvedType {
    if (expression.startsWith('*')) {
      const target = this.resolve(expression.slice(1), pkg, imports, where);
      if (target.repeated || target.mapKey !== undefined) throw new DescriptionError(`${where}: pointer to a list or map (${expression})`);
      return { ...target, pointer: true };
    }
    if (expression === '[]byte') return { type: 'bytes', repeated: false, mapKey: undefined, pointer: false, enumValues: undefined, jsonForm: undefined };
    if (expression.startsWith('[]')) {
      const item = this.resolve(expression.slice(2), pkg, imports, where);
      if (item.repeated || item.mapKey !== undefined || item.pointer) throw new DescriptionError(`${where}: unsupported list item type in ${expression}`);
      return { ...item, repeated: true };
    }
    if (expression.startsWith('map[')) {
      const { key, value } = splitMapType(expression, where);
      const resolvedKey = this.resolve(key, pkg, imports, where);
      const resolvedValue = this.resolve(value, pkg, imports, where);
      if (resolvedKey.type.includes('.') || resolvedKey.repeated || resolvedKey.mapKey !== undefined) throw new DescriptionError(`${where}: unsupported map key in ${expression}`);
      if (resolvedValue.repeated || resolvedValue.mapKey !== undefined || resolvedValue.pointer) throw new DescriptionError(`${where}: unsupported map value in ${expression}`);
      return { ...resolvedValue, mapKey: resolvedKey.type as ProtoScalarType };
    }
    const scalar = goScalars.get(expression);
    if (scalar) return { type: scalar, repeated: false, mapKey: undefined, pointer: false, enumValues: undefined, jsonForm: undefined };
    const qualified = /^(\w+)\.(\w+)$/.exec(expression);
    if (qualified) {
      const standard = standardLibraryScalars.get(`${imports.get(qualified[1]!) ?? ''}.${qualified[2]!}`);
      if (standard) return { type: standard, repeated: false, mapKey: undefined, pointer: false, enumValues: undefined, jsonForm: undefined };
    }
    if (!/^(\w+\.)?\w+$/.test(expression)) throw new DescriptionError(`${where}: unsupported type expression ${expression}`);
    const located = this.locate(expression, pkg, imports, where);
    const declaration = located.declaration;
    if (this.isMessage(located.pkg, declaration)) {
      return {
        type: messageNameOf(located.pkg.importPath, declaration.name), repeated: false, mapKey: undefined, pointer: false,
        enumValues: undefined, jsonForm: this.jsonFormOf(located.pkg, declaration),
      };
    }
    if (declaration.form === 'alias') return this.resolve(declaration.target, located.pkg, declaration.imports, where);
    if (declaration.form === 'struct') throw new DescriptionError(`${where}: ${expression} is a struct but not a protobuf message`);
    const underlying = this.resolve(declaration.underlying, located.pkg, declaration.imports, where);
    if (hasMarker(declaration.markers, 'enum')) {
      if (underlying.type !== 'string' || underlying.repeated || underlying.mapKey !== undefined) throw new DescriptionError(`${declaration.where}: +enum on a type that is not a string`);
      return { ...underlying, enumValues: this.enumValues(located.pkg, declaration.name) };
    }
    return underlying;
  }

  private describeField(field: GoField, owner: Located<GoStructDeclaration>, messageHasJsonForm: boolean): FieldDescription | undefined {
    const where = field.where;
    if (field.unreadable !== undefined) throw new DescriptionError(`${where}: unreadable field line: ${field.unreadable}`);
    const protobufText = field.tag.get('protobuf');
    const protobuf = protobufText === undefined ? undefined : parseProtobufTag(protobufText, where);
    if (protobuf === '-') return undefined;
    const embeddedName = field.name === undefined ? field.type.replace(/^\*/, '').split('.').pop()! : undefined;
    const json = parseJsonTag(field.tag.get('json'), field.name);
    if (protobuf === undefined && json.name === undefined && !json.inline) return undefined;
    if (protobuf === undefined && field.name === undefined && field.tag.get('json') === undefined) {
      throw new DescriptionError(`${where}: embedded ${field.type} without json or protobuf tag`);
    }
    const resolved = this.resolve(field.type, owner.pkg, owner.declaration.imports, where);

    if (protobuf !== undefined) {
      const expectedWire = resolved.mapKey !== undefined || resolved.type.includes('.') ? 'bytes' : wireTypes[resolved.type as ProtoScalarType];
      if (protobuf.wireType !== expectedWire) this.notes.push(`${where}: protobuf tag wire type ${protobuf.wireType} for ${field.type}`);
      const listLike = resolved.repeated || resolved.mapKey !== undefined;
      // go-to-protobuf takes the wire type and label from the Go type; a stale tag is only worth a note.
      if (listLike !== (protobuf.label === 'rep')) this.notes.push(`${where}: protobuf tag label ${protobuf.label ?? '(none)'} for ${field.type}`);
    }

    const markers = field.markers;
    const tagPatchStrategy = field.tag.get('patchStrategy');
    const markerPatchStrategy = singleMarker(markers, 'patchStrategy', where);
    if (tagPatchStrategy !== undefined && markerPatchStrategy !== undefined && tagPatchStrategy !== markerPatchStrategy) {
      throw new DescriptionError(`${where}: patchStrategy tag ${tagPatchStrategy} and marker ${markerPatchStrategy} differ`);
    }
    const tagMergeKey = field.tag.get('patchMergeKey');
    const markerMergeKey = singleMarker(markers, 'patchMergeKey', where);
    if (tagMergeKey !== undefined && markerMergeKey !== undefined && tagMergeKey !== markerMergeKey) {
      throw new DescriptionError(`${where}: patchMergeKey tag ${tagMergeKey} and marker ${markerMergeKey} differ`);
    }
    const tagListType = field.tag.get('listType');
    const markerListType = singleMarker(markers, 'listType', where);
    if (tagListType !== undefined && markerListType !== undefined && tagListType !== markerListType) {
      throw new DescriptionError(`${where}: listType tag ${tagListType} and marker ${markerListType} differ`);
    }
    let listType = oneOf<ListType>(markerListType ?? tagListType, ['atomic', 'set', 'map'], 'listType', where);
    // kube marks some []byte fields (one protobuf bytes value) +listType=atomic too; on anything
    // else that is not a list the marker says nothing, and is left out.
    if (listType !== undefined && !resolved.repeated && resolved.type !== 'bytes') {
      this.notes.push(`${where}: +listType=${listType} on ${field.type}, left out`);
      listType = undefined;
    }
    let mapType = oneOf<MergeGranularity>(singleMarker(markers, 'mapType', where), ['atomic', 'granular'], 'mapType', where);
    if (mapType !== undefined && resolved.mapKey === undefined) {
      this.notes.push(`${where}: +mapType=${mapType} on ${field.type}, left out`);
      mapType = undefined;
    }
    const listMapKeys = markerValues(markers, 'listMapKey');
    if (listType === 'map' && listMapKeys.length === 0) throw new DescriptionError(`${where}: +listType=map without +listMapKey`);
    if (listType !== 'map' && listMapKeys.length > 0) throw new DescriptionError(`${where}: +listMapKey on a list that is not a map`);

    const protoName = protobuf === undefined ? undefined : protobuf.name ?? lowerFirst(field.name ?? embeddedName!);
    const jsonName = messageHasJsonForm ? undefined : json.name;
    // Property order here is the order of the generated lines.
    const ordered: FieldDescription = {
      ...(jsonName !== undefined ? { json: jsonName } : {}),
      ...(protoName !== undefined && protoName !== jsonName ? { protoName } : {}),
      ...(protobuf !== undefined ? { number: protobuf.number } : {}),
      type: resolved.type,
      ...(resolved.repeated ? { repeated: true as const } : {}),
      ...(resolved.mapKey !== undefined ? { mapKey: resolved.mapKey } : {}),
      ...(resolved.pointer ? { pointer: true as const } : {}),
      ...(!messageHasJsonForm && json.omitEmpty ? { omitEmpty: true as const } : {}),
      ...(!messageHasJsonForm && json.inline ? { inline: true as const } : {}),
      ...(hasMarker(markers, 'optional') || hasMarker(markers, 'k8s:optional') ? { optional: true as const } : {}),
      ...(hasMarker(markers, 'required') || hasMarker(markers, 'k8s:required') || hasMarker(markers, 'kubebuilder:validation:Required') ? { required: true as const } : {}),
      ...(resolved.jsonForm !== undefined ? { jsonForm: resolved.jsonForm } : {}),
      ...(resolved.enumValues !== undefined ? { enum: resolved.enumValues } : {}),
      ...(listType !== undefined ? { listType } : {}),
      ...(listMapKeys.length > 0 ? { listMapKeys } : {}),
      ...withDefined('patchStrategy', oneOf<PatchStrategy>(markerPatchStrategy ?? tagPatchStrategy, ['merge', 'replace', 'retainKeys', 'merge,retainKeys'], 'patchStrategy', where)),
      ...withDefined('patchMergeKey', markerMergeKey ?? tagMergeKey),
      ...withDefined('mapType', mapType),
      ...withDefined('structType', oneOf<MergeGranularity>(singleMarker(markers, 'structType', where), ['atomic', 'granular'], 'structType', where)),
      ...withDefined('default', singleMarker(markers, 'default', where)),
      ...(markerValues(markers, 'featureGate').length > 0 ? { featureGates: markerValues(markers, 'featureGate') } : {}),
      ...(hasMarker(markers, 'unionDiscriminator') ? { unionDiscriminator: true as const } : {}),
    };
    return ordered;
  }

  private describeMessage(pkg: GoPackage, declaration: GoTypeDeclaration): MessageDescription {
    const name = messageNameOf(pkg.importPath, declaration.name);
    const jsonForm = this.jsonFormOf(pkg, declaration);
    const where = declaration.where;
    let fields: FieldDescription[];
    const embedAs = singleMarker(declaration.markers, 'protobuf.embed', where);
    const protobufAs = singleMarker(declaration.markers, 'protobuf.as', where);
    let structDeclaration: Located<GoStructDeclaration> | undefined;
    if (embedAs !== undefined) {
      // The message is one field holding the type's text form (resource.Quantity).
      const type = goScalars.get(embedAs);
      if (type === undefined) throw new DescriptionError(`${where}: +protobuf.embed=${embedAs} is not a scalar`);
      fields = [{ protoName: embedAs, number: 1, type }];
    } else if (declaration.form === 'named' && /^\[\]/.test(declaration.underlying)) {
      // A named slice marked +protobuf.nullable: a message with one repeated field "items".
      const item = this.resolve(declaration.underlying, pkg, declaration.imports, where);
      fields = [{ protoName: 'items', number: 1, type: item.type, repeated: true }];
    } else {
      structDeclaration = protobufAs !== undefined
        ? this.structOf({ pkg, declaration: this.declarationOf(pkg, protobufAs, where) }, where)
        : this.structOf({ pkg, declaration }, where);
      if (!structDeclaration) throw new DescriptionError(`${where}: ${declaration.name} has no struct to describe`);
      const owner = structDeclaration;
      fields = owner.declaration.fields
        .map((field) => this.describeField(field, owner, jsonForm !== undefined))
        .filter((field): field is FieldDescription => field !== undefined);
    }
    const numbers = new Set<number>();
    for (const field of fields) {
      if (field.number === undefined) continue;
      if (numbers.has(field.number)) throw new DescriptionError(`${where}: field number ${field.number} used twice in ${name}`);
      numbers.add(field.number);
    }
    const removedFields: RemovedField[] = (structDeclaration?.declaration.bodyMarkers ?? [])
      .filter((marker) => marker.name === 'k8s:deprecated')
      .map((marker) => {
        const [json, ...options] = (marker.value ?? '').split(',');
        const number = options.find((option) => option.startsWith('protobuf='))?.slice('protobuf='.length);
        return { json: json!, ...(number !== undefined ? { number: Number(number) } : {}) };
      });
    const structType = oneOf<MergeGranularity>(singleMarker(declaration.markers, 'structType', where), ['atomic', 'granular'], 'structType', where);
    return {
      name,
      fields,
      ...(jsonForm !== undefined ? { jsonForm } : {}),
      ...(structType !== undefined ? { structType } : {}),
      ...(hasMarker(declaration.markers, 'union') ? { union: true as const } : {}),
      ...(removedFields.length > 0 ? { removedFields } : {}),
    };
  }

  /** Whether the struct embeds TypeMeta and has an ObjectMeta (or, for a list, a ListMeta) field. */
  private hasMeta(located: Located<GoStructDeclaration>, meta: 'ObjectMeta' | 'ListMeta'): boolean {
    const metaPackage = 'k8s.io/apimachinery/pkg/apis/meta/v1';
    const isMetaType = (field: GoField, typeName: string): boolean => {
      const expression = field.type.replace(/^\*/, '');
      try {
        const target = this.locate(expression, located.pkg, located.declaration.imports, field.where);
        return target.pkg.importPath === metaPackage && target.declaration.name === typeName;
      } catch {
        return false;
      }
    };
    const fields = located.declaration.fields;
    return fields.some((field) => field.name === undefined && isMetaType(field, 'TypeMeta'))
      && fields.some((field) => isMetaType(field, meta));
  }

  private clientOf(markers: readonly GoMarker[], pkg: GoPackage, where: string): ClientDescription {
    const verbs = (name: string): string[] | undefined => {
      const value = singleMarker(markers, name, where);
      return value === undefined ? undefined : value.split(',').map((verb) => verb.trim()).filter((verb) => verb !== '');
    };
    const messageOf = (reference: string | undefined): MessageName | undefined => {
      if (reference === undefined) return undefined;
      const dot = reference.lastIndexOf('.');
      return dot < 0 ? messageNameOf(pkg.importPath, reference) : messageNameOf(reference.slice(0, dot), reference.slice(dot + 1));
    };
    const methods: ClientMethod[] = markerValues(markers, 'genclient:method').map((value) => {
      const [name, ...options] = value.split(',');
      const option = (key: string): string | undefined => options.find((entry) => entry.startsWith(`${key}=`))?.slice(key.length + 1);
      const verb = option('verb');
      if (name === undefined || verb === undefined) throw new DescriptionError(`${where}: unreadable +genclient:method=${value}`);
      return {
        name, verb,
        ...withDefined('subresource', option('subresource')),
        ...withDefined('input', messageOf(option('input'))),
        ...withDefined('result', messageOf(option('result'))),
      };
    });
    const onlyVerbs = verbs('genclient:onlyVerbs');
    const skipVerbs = verbs('genclient:skipVerbs');
    return {
      ...withDefined('onlyVerbs', onlyVerbs),
      ...withDefined('skipVerbs', skipVerbs),
      ...(hasMarker(markers, 'genclient:noVerbs') ? { noVerbs: true as const } : {}),
      ...(hasMarker(markers, 'genclient:noStatus') ? { noStatus: true as const } : {}),
      ...(methods.length > 0 ? { methods } : {}),
    };
  }

  private lifecycleOf(markers: readonly GoMarker[], where: string): PrereleaseLifecycle | undefined {
    const prefix = 'k8s:prerelease-lifecycle-gen:';
    const replacement = singleMarker(markers, `${prefix}replacement`, where);
    let parsedReplacement: PrereleaseLifecycle['replacement'];
    if (replacement !== undefined) {
      const [group, version, kind] = replacement.split(',').map((part) => part.trim());
      if (group === undefined || version === undefined || kind === undefined) throw new DescriptionError(`${where}: unreadable replacement ${replacement}`);
      parsedReplacement = { group, version, kind };
    }
    const lifecycle: PrereleaseLifecycle = {
      ...withDefined('introduced', singleMarker(markers, `${prefix}introduced`, where)),
      ...withDefined('deprecated', singleMarker(markers, `${prefix}deprecated`, where)),
      ...withDefined('removed', singleMarker(markers, `${prefix}removed`, where)),
      ...withDefined('replacement', parsedReplacement),
    };
    return Object.keys(lifecycle).length > 0 ? lifecycle : undefined;
  }

  private describeKinds(pkg: GoPackage): KindDescription[] {
    const kinds: KindDescription[] = [];
    for (const declaration of pkg.types.values()) {
      if (declaration.form !== 'struct' || !this.isMessage(pkg, declaration)) continue;
      const located = { pkg, declaration };
      const genclient = hasMarker(declaration.markers, 'genclient');
      if (!genclient && !this.hasMeta(located, 'ObjectMeta')) continue;
      const list = pkg.types.get(`${declaration.name}List`);
      const hasList = list !== undefined && list.form === 'struct' && this.hasMeta({ pkg, declaration: list }, 'ListMeta')
        && list.fields.some((field) => field.name === 'Items' && field.type === `[]${declaration.name}`);
      const lifecycle = this.lifecycleOf(declaration.markers, declaration.where);
      kinds.push({
        kind: declaration.name,
        message: messageNameOf(pkg.importPath, declaration.name),
        ...(hasList ? { listKind: `${declaration.name}List` } : {}),
        ...(hasMarker(declaration.markers, 'genclient:nonNamespaced') ? { clusterScoped: true as const } : {}),
        ...(genclient ? { client: this.clientOf(declaration.markers, pkg, declaration.where) } : {}),
        ...withDefined('lifecycle', lifecycle),
      });
    }
    return kinds.sort((left, right) => compareText(left.kind, right.kind));
  }

  private groupVersionOf(pkg: GoPackage): ApiPackageDescription['groupVersion'] {
    const version = pkg.importPath.split('/').pop()!;
    if (!/^v\d+((alpha|beta)\d+)?$/.test(version)) return undefined;
    const marked = singleMarker(pkg.markers, 'groupName', pkg.importPath);
    const constant = pkg.constants.get('GroupName')?.value;
    const group = marked ?? (constant?.form === 'string' ? constant.value : undefined);
    if (group === undefined) throw new DescriptionError(`${pkg.importPath}: no +groupName marker and no GroupName constant`);
    return { group, version };
  }

  /** The description of one package (its messages sorted by name, its kinds by kind). */
  describePackage(importPath: string): ApiPackageDescription {
    const pkg = this.packageAt(importPath, importPath);
    const messages: MessageDescription[] = [];
    for (const declaration of pkg.types.values()) {
      if (this.isMessage(pkg, declaration)) messages.push(this.describeMessage(pkg, declaration));
    }
    for (const [typeName, methods] of pkg.methods) {
      const declaration = pkg.types.get(typeName);
      if (methods.has('MarshalJSON') && declaration && this.isMessage(pkg, declaration)) this.jsonFormOf(pkg, declaration);
    }
    const groupVersion = this.groupVersionOf(pkg);
    return {
      goPackage: importPath,
      protoPackage: protoPackageOf(importPath),
      ...withDefined('groupVersion', groupVersion),
      kinds: this.describeKinds(pkg),
      messages: messages.sort((left, right) => compareText(left.name, right.name)),
    };
  }
}

/** `{ [key]: value }` when value is defined, `{}` otherwise (for optional properties). */
function withDefined<Key extends string, Value>(key: Key, value: Value | undefined): { [K in Key]?: Value } {
  return (value === undefined ? {} : { [key]: value }) as { [K in Key]?: Value };
}
