// Parses kubectl's human-readable tables (`kubectl get`, `api-resources`): the columns are
// left-aligned under their headers, so each cell is cut at the header's start positions (cells
// may be empty, e.g. SHORTNAMES of secrets, which plain whitespace splitting would lose).

export interface Table {
  readonly headers: readonly string[];
  readonly rows: readonly Readonly<Record<string, string>>[];
}

/** Parses the first table in `text` (its first non-empty line is the header). */
export function parseTable(text: string): Table {
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  const header = lines[0];
  if (header === undefined) return { headers: [], rows: [] };
  const starts: { name: string; start: number }[] = [];
  for (const match of header.matchAll(/\S+/g)) starts.push({ name: match[0], start: match.index });
  const rows = lines.slice(1).map((line) => {
    const row: Record<string, string> = {};
    starts.forEach((column, index) => {
      const end = starts[index + 1]?.start ?? line.length;
      row[column.name] = line.slice(column.start, index + 1 < starts.length ? end : undefined).trim();
    });
    return row;
  });
  return { headers: starts.map((column) => column.name), rows };
}
