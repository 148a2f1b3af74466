// Owns: the shape of kstore's compact description of the Kubernetes API types, as generated into
// ./generated/ by `npm run generate:kinds` (tools/generate-kinds/) from the Go API types of
// k8s.io/api and k8s.io/apimachinery (and the groups of kube-aggregator and apiextensions-apiserver):
// one ApiPackageDescription per Go package (a group/version, or a shared apimachinery package such
// as meta/v1), its protobuf messages with their fields and
// the JSON, list, map, merge and enum facts of each field, and its top-level kinds.
// Types only: the schema, protobuf, merge and printer code reads these values.

/** A protobuf scalar type, as kube's generated.proto files use them. */
export type ProtoScalarType = 'string' | 'bytes' | 'bool' | 'int32' | 'int64' | 'uint32' | 'uint64' | 'double' | 'float';

/**
 * A protobuf message's full name without the leading dot, e.g. `k8s.io.api.apps.v1.DeploymentSpec`:
 * the Go package path with dots for slashes, then the Go type name. Every kube message lives under k8s.io.
 */
export type MessageName = `k8s.io.${string}`;

/** What a field holds: a scalar, or a message named by its full name. */
export type FieldValueType = ProtoScalarType | MessageName;

/**
 * The JSON form of the messages whose Go type writes JSON of its own rather than an object of
 * its fields (the protobuf form is still the message's fields):
 * - `time`: metav1.Time, an RFC 3339 string with seconds (`null` for the zero time);
 * - `microTime`: metav1.MicroTime, an RFC 3339 string with microseconds;
 * - `duration`: metav1.Duration, a Go duration string such as `"1h2m3s"`;
 * - `quantity`: resource.Quantity, a string such as `"500m"` (a JSON number is accepted on input);
 * - `intOrString`: intstr.IntOrString, a JSON number or a string;
 * - `rawExtension`: runtime.RawExtension, any JSON value (an embedded object), bytes in protobuf;
 * - `unknown`: runtime.Unknown, the raw bytes it carries;
 * - `fieldsV1`: metav1.FieldsV1, the JSON object its bytes hold (managed fields);
 * - `groupVersion`: metav1.GroupVersion, the string `group/version`;
 * - `array`: a Go named slice that protobuf wraps in a message with one repeated field `items`
 *   (metav1.Verbs, authentication's ExtraValue): a plain JSON array of the items;
 * - `json`: apiextensions' JSON, any JSON value (its protobuf `raw` holds the JSON text);
 * - `schemaOrArray`: JSONSchemaPropsOrArray, a schema object or a list of them (protobuf `schema`
 *   or `jSONSchemas`); kube's decoder leaves any other JSON value unset;
 * - `schemaOrBool`: JSONSchemaPropsOrBool, a schema object or a boolean (protobuf `schema`, `allows`);
 * - `schemaOrStringArray`: JSONSchemaPropsOrStringArray, a schema object or a list of strings
 *   (protobuf `schema` or `property`); kube's decoder leaves any other JSON value unset.
 */
export type JsonForm =
  | 'time' | 'microTime' | 'duration' | 'quantity' | 'intOrString' | 'rawExtension' | 'unknown' | 'fieldsV1' | 'groupVersion' | 'array'
  | 'json' | 'schemaOrArray' | 'schemaOrBool' | 'schemaOrStringArray';

/** How server-side apply merges a list: as a whole, as a set of scalars, or as a map keyed by listMapKeys. */
export type ListType = 'atomic' | 'set' | 'map';

/** How server-side apply merges a map or a struct: as a whole, or field by field. */
export type MergeGranularity = 'atomic' | 'granular';

/** Strategic merge patch's strategy for a field (`merge` for lists and maps keyed by patchMergeKey). */
export type PatchStrategy = 'merge' | 'replace' | 'retainKeys' | 'merge,retainKeys';

/**
 * One field of a message: one Go struct field that is in protobuf, in JSON, or both.
 * Optional properties are absent rather than false, so the generated lines stay short.
 */
export interface FieldDescription {
  /** The JSON property name; absent for an inline field and for a field JSON never carries (Go `json:"-"`). */
  readonly json?: string;
  /** The field's name in protobuf, when it differs from `json` (or `json` is absent). */
  readonly protoName?: string;
  /** The protobuf field number; absent when the field is not in the protobuf message (TypeMeta in a kind). */
  readonly number?: number;
  /** The value type: the element type of a repeated field, the value type of a map. */
  readonly type: FieldValueType;
  /** A list (protobuf `repeated`, a Go slice). */
  readonly repeated?: true;
  /** A map (protobuf `map<mapKey, type>`, a Go map); kube's map keys are strings. */
  readonly mapKey?: ProtoScalarType;
  /** The Go field is a pointer (`*T`): "unset" and the zero value differ, and JSON keeps a set zero value. */
  readonly pointer?: true;
  /**
   * The Go json tag has `omitempty`: JSON leaves the field out when it is false, 0, "", an empty
   * list or map, or a nil pointer. A set pointer is always written, and so is a non-pointer
   * message field (Go does not omit structs: `creationTimestamp: null`).
   */
  readonly omitEmpty?: true;
  /** A Go embedded struct with `json:",inline"`: its type's fields sit directly in the enclosing JSON object. */
  readonly inline?: true;
  /** Marked `+optional`. */
  readonly optional?: true;
  /** Marked `+required` (kube also treats a field without `+optional` and without omitempty as required). */
  readonly required?: true;
  /** The JSON form of the field's message type, when it is not an object of fields (see JsonForm). */
  readonly jsonForm?: JsonForm;
  /** The values of the field's string enum type (a Go string type marked `+enum`), sorted. */
  readonly enum?: readonly string[];
  /** `+listType`: how server-side apply merges this list. */
  readonly listType?: ListType;
  /** `+listMapKey` (repeatable): the keys of a `listType: 'map'` list's items. */
  readonly listMapKeys?: readonly string[];
  /** Strategic merge patch strategy (`patchStrategy` tag or `+patchStrategy` marker). */
  readonly patchStrategy?: PatchStrategy;
  /** Strategic merge patch merge key of a list merged item by item (`patchMergeKey`). */
  readonly patchMergeKey?: string;
  /** `+mapType`: how server-side apply merges this map. */
  readonly mapType?: MergeGranularity;
  /** `+structType` on the field: how server-side apply merges this struct. */
  readonly structType?: MergeGranularity;
  /** `+default=`: the default value kube's defaulting applies, as the marker's text (a JSON literal or `ref(Name)`). */
  readonly default?: string;
  /** `+featureGate=`: the feature gates the field belongs to. */
  readonly featureGates?: readonly string[];
  /** `+unionDiscriminator`: the field names which member of its message's union is set. */
  readonly unionDiscriminator?: true;
}

/** A field number or JSON name a message no longer uses (`+k8s:deprecated=name[,protobuf=N]`). */
export interface RemovedField {
  readonly json: string;
  readonly number?: number;
}

/** One protobuf message: a Go struct of the package (or a wrapped named slice, see JsonForm `array`). */
export interface MessageDescription {
  readonly name: MessageName;
  /** In Go declaration order, which is the order Go writes JSON properties in. */
  readonly fields: readonly FieldDescription[];
  /**
   * The JSON form, when the message's Go type does not write an object of its fields; its fields
   * then describe only the protobuf form (no `json`, `omitEmpty` or `inline`).
   */
  readonly jsonForm?: JsonForm;
  /** `+structType` on the type: how server-side apply merges a value of this message. */
  readonly structType?: MergeGranularity;
  /** `+union`: at most one member field is set (see FieldDescription.unionDiscriminator). */
  readonly union?: true;
  /** Names and numbers the message must not reuse. */
  readonly removedFields?: readonly RemovedField[];
}

/** `+genclient:method=`: a typed client method, most often a subresource such as scale or status. */
export interface ClientMethod {
  readonly name: string;
  /** The verb: get, list, create, update, patch, apply, delete, ... */
  readonly verb: string;
  readonly subresource?: string;
  /** The message the method sends, when not the kind's own. */
  readonly input?: MessageName;
  /** The message the method answers, when not the kind's own. */
  readonly result?: MessageName;
}

/** The `+genclient` facts of a kind: which verbs kube's typed client offers for it. */
export interface ClientDescription {
  /** `+genclient:onlyVerbs=`: the client offers only these verbs. */
  readonly onlyVerbs?: readonly string[];
  /** `+genclient:skipVerbs=`: the client offers every verb but these. */
  readonly skipVerbs?: readonly string[];
  /** `+genclient:noVerbs`: the client offers no verbs (the kind is only a subresource's body). */
  readonly noVerbs?: true;
  /** `+genclient:noStatus`: no status subresource methods. */
  readonly noStatus?: true;
  readonly methods?: readonly ClientMethod[];
}

/** `+k8s:prerelease-lifecycle-gen:*`: the Kubernetes minor versions a kind was introduced, deprecated and removed in. */
export interface PrereleaseLifecycle {
  readonly introduced?: string;
  readonly deprecated?: string;
  readonly removed?: string;
  /** The group, version and kind that replaces a deprecated kind. */
  readonly replacement?: { readonly group: string; readonly version: string; readonly kind: string };
}

/**
 * A top-level kind of a package: a struct marked `+genclient`, or one that embeds TypeMeta and
 * has ObjectMeta. Scope: namespaced unless `clusterScoped`.
 */
export interface KindDescription {
  readonly kind: string;
  readonly message: MessageName;
  /** The kind of its list (`<Kind>List`), when the package declares one. */
  readonly listKind?: string;
  /** `+genclient:nonNamespaced`. */
  readonly clusterScoped?: true;
  /** Present when the kind is marked `+genclient`. */
  readonly client?: ClientDescription;
  readonly lifecycle?: PrereleaseLifecycle;
}

/** One Go package of API types: a served group/version (apps/v1) or a shared one (meta/v1, intstr). */
export interface ApiPackageDescription {
  /** The Go import path, e.g. `k8s.io/api/apps/v1`. */
  readonly goPackage: string;
  /** The protobuf package, e.g. `k8s.io.api.apps.v1`. */
  readonly protoPackage: string;
  /** The API group (`''` for the core group) and version, when the package is a group/version. */
  readonly groupVersion?: { readonly group: string; readonly version: string };
  /** Sorted by kind. */
  readonly kinds: readonly KindDescription[];
  /** Sorted by name. */
  readonly messages: readonly MessageDescription[];
}
