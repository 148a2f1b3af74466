// Owns: the named limits on what one request may carry or make, each with kube-apiserver's value
// (or why kstore's differs) and its reason. Pure constants: the checks that enforce them live
// in api/decode.ts (bodies and patches), api/body-limit.ts (the body size on the wire),
// api/patch/json-patch.ts (copy growth) and api/registry/validation.ts (numbers).

/**
 * kube-apiserver's MaxRequestBodyBytes: 3 MiB. etcd accepts 1.5 MiB requests by default and an
 * object's JSON is about twice its protobuf, so 3 MiB of JSON is the largest body worth decoding.
 * (api/body-limit.ts enforces it on the wire; it still defines its own copy of this value until
 * it imports this one.)
 */
export const requestBodyBytesMax = 3 * 1024 * 1024;

/**
 * Nesting of objects and arrays a request body may have (a document `{"a":[1]}` is 2 deep).
 * Go's decoders as kube uses them stop at 10,000 (encoding/json and sigs.k8s.io/json:
 * "exceeded max depth"; go-yaml: "exceeded max depth of 10000"). kstore stops at 500, with the
 * same messages: V8 recurses natively where Go grows its stack, and the tightest recursions a
 * body meets run out of the default 984 KiB stack far below 10,000 (measured cold on Node 20:
 * the yaml library's parser at ~785 levels and its stringifier at ~614, structuredClone at
 * ~1,900, JSON.stringify at ~4,100). 500 keeps each of them with a fifth of the stack to spare
 * and is far above any served kind (the deepest schema is 13 levels; only managedFields'
 * fieldsV1 is free-form). One limit for JSON, YAML and protobuf bodies and for patches and
 * their results, so a document either decodes everywhere or is refused at decode.
 */
export const nestingDepthMax = 500;

/** kube's maxJSONPatchOperations: a JSON patch of more operations is refused (413) before it is applied. */
export const jsonPatchOperationsMax = 10_000;

/**
 * kube-apiserver's JSONPatchMaxCopyBytes (json-patch's AccumulatedCopySizeLimit): 3 MiB. The
 * bytes `copy` operations of one JSON patch may add, so a small patch cannot double a value
 * into an object no body could carry.
 */
export const jsonPatchCopyBytesMax = 3 * 1024 * 1024;

/**
 * The largest object (its JSON) a write may store: what a create body may carry, so a patch
 * cannot make an object no create could. kube relies on etcd here (1.5 MiB requests, answered
 * 500 "etcdserver: request is too large"); kstore has no etcd and answers its body limit's 413.
 */
export const objectBytesMax = requestBodyBytesMax;

/**
 * The longest label selector key name part (and label value): kube's qualified-name and
 * label-value rules (IsQualifiedName, IsValidLabelValue), checked when a selector is parsed.
 */
export const labelNameLengthMax = 63;
