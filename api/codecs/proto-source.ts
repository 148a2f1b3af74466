// Owns: the shape of one hand-written proto source (ProtoSource) and the two JSON-mapping marks
// a field line may carry as a trailing comment, read here from the text:
//   "// keep"    the zero value survives decoding, because Go holds the field in a pointer
//                (presence matters) or serializes it to JSON without omitempty;
//   "// inline"  the field is a Go embedded struct with `json:",inline"`: its message's fields
//                sit directly in the enclosing JSON object (Volume's VolumeSource, Probe's
//                ProbeHandler, the LocalObjectReference inside a ConfigMapKeySelector, ...).
// Marks sit next to the field they describe, so a table and its JSON rules cannot drift apart.

/** One proto file: its package is the real Kubernetes package, so fully-qualified names match. */
export interface ProtoSource {
  readonly origin: string;
  readonly text: string;
}

/** message full name → names of its fields carrying the mark. */
export type FieldMarks = Map<string, Set<string>>;

const packageLine = /^\s*package\s+([\w.]+)\s*;/;
const messageLine = /^\s*message\s+(\w+)\s*\{/;
const markedField = /^\s*(?:optional|repeated|map<[^>]+>)\s*[\w.]*\s+(\w+)\s*=\s*\d+\s*;\s*\/\/\s*(keep|inline)\b/;

/** Collects the "// keep" and "// inline" marks of the given sources. */
export function fieldMarks(sources: readonly ProtoSource[]): { keep: FieldMarks; inline: FieldMarks } {
  const keep: FieldMarks = new Map();
  const inline: FieldMarks = new Map();
  for (const source of sources) {
    let packageName = '';
    let message = '';
    for (const line of source.text.split('\n')) {
      const pkg = packageLine.exec(line);
      if (pkg) packageName = pkg[1]!;
      const opened = messageLine.exec(line);
      if (opened) message = `${packageName}.${opened[1]!}`;
      const marked = markedField.exec(line);
      if (!marked) continue;
      if (message === '') throw new Error(`${source.origin}: field ${marked[1]!} is marked outside a message`);
      const marks = marked[2] === 'keep' ? keep : inline;
      const fields = marks.get(message) ?? new Set<string>();
      fields.add(marked[1]!);
      marks.set(message, fields);
    }
  }
  return { keep, inline };
}
