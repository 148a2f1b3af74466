// Owns: the simulation trace: every event as one line "time kind detail". Keeps the last
// `traceLinesKept` lines for a violation report, a 64-bit FNV-1a hash of all lines (two 32-bit
// lanes) to prove replays byte-identical, and an optional sink for verbose replay. No clock.

/**
 * Lines kept for a violation report. 400 lines cover several election timeouts of a 5-member
 * cluster (the window in which a safety bug usually unfolds) and still print in one screen-ful
 * of scrollback; a full trace is available by replaying the seed with --seed.
 */
export const traceLinesKept = 400;

const fnvPrime = 0x01000193;

export class Trace {
  readonly #ring: string[] = new Array<string>(traceLinesKept);
  #count = 0;
  #hashLow = 0x811c9dc5;
  #hashHigh = 0x050c5d1f;
  readonly #sink: ((line: string) => void) | undefined;

  constructor(sink?: (line: string) => void) {
    this.#sink = sink;
  }

  record(time: number, text: string): void {
    const line = `${String(time).padStart(7)} ${text}`;
    this.#ring[this.#count % traceLinesKept] = line;
    this.#count += 1;
    this.#mix(line);
    this.#sink?.(line);
  }

  get lineCount(): number {
    return this.#count;
  }

  /** The hash of every line recorded so far, as 16 hex digits. */
  hash(): string {
    return (this.#hashHigh >>> 0).toString(16).padStart(8, '0') + (this.#hashLow >>> 0).toString(16).padStart(8, '0');
  }

  /** The last lines recorded, oldest first. */
  tail(): string[] {
    const kept = Math.min(this.#count, traceLinesKept);
    const lines: string[] = [];
    for (let offset = this.#count - kept; offset < this.#count; offset += 1) lines.push(this.#ring[offset % traceLinesKept]!);
    return lines;
  }

  #mix(line: string): void {
    let low = this.#hashLow;
    let high = this.#hashHigh;
    for (let position = 0; position < line.length; position += 1) {
      const code = line.charCodeAt(position);
      low = Math.imul(low ^ code, fnvPrime);
      high = Math.imul(high ^ (code + position), fnvPrime);
    }
    this.#hashLow = Math.imul(low ^ 10, fnvPrime);
    this.#hashHigh = Math.imul(high ^ low, fnvPrime);
  }
}
