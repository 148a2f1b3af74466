// Owns: the checks run on a fault test's recorded history, beyond the Porcupine-style search of
// test/sim/checkers/linearizability.ts (which checks the values: put/get on registers):
//
//  - checkReadRevisions: every read names the write it saw by its unique value; the
//    resourceVersion it saw must be the revision that write was acknowledged with (or the
//    setup revision for the initial ''). This is what proves a read-delete changed nothing, and
//    that a value is never served under another revision.
//  - checkWriteOrder: for acknowledged writes to one key, revision order respects real time: a
//    write that returned before another was invoked has the smaller revision.
//
// Pure functions over the recorded data; each returns the problems found (empty when fine).
import type { KvOperation } from '../sim/checkers/linearizability.ts';
import type { AcknowledgedWrite, ObservedRead } from './workload.ts';

/** Problems reported per check, at most; the rest are counted. */
const problemsShownMax = 10;

function capped(problems: string[]): string[] {
  if (problems.length <= problemsShownMax) return problems;
  return [...problems.slice(0, problemsShownMax), `... and ${problems.length - problemsShownMax} more`];
}

export function checkReadRevisions(reads: readonly ObservedRead[], writes: readonly AcknowledgedWrite[], initialRevisions: ReadonlyMap<string, number>): string[] {
  const revisionOf = new Map<string, number>();
  for (const write of writes) revisionOf.set(`${write.key}\u0000${write.value}`, write.revision);
  const problems: string[] = [];
  for (const read of reads) {
    const expected = read.value === '' ? initialRevisions.get(read.key) : revisionOf.get(`${read.key}\u0000${read.value}`);
    // A value whose write is pending (never acknowledged) has no known revision to compare.
    if (expected === undefined) continue;
    if (read.resourceVersion !== String(expected)) {
      problems.push(`read of ${read.key} saw value ${JSON.stringify(read.value)} at resourceVersion ${read.resourceVersion}, but it was written at revision ${expected}`);
    }
  }
  return capped(problems);
}

export function checkWriteOrder(history: readonly KvOperation[], writes: readonly AcknowledgedWrite[]): string[] {
  const operationOf = new Map<string, KvOperation>();
  for (const operation of history) {
    if (operation.input.kind === 'put') operationOf.set(`${operation.input.key}\u0000${operation.input.value}`, operation);
  }
  const byKey = new Map<string, { revision: number; call: number; return: number; value: string }[]>();
  for (const write of writes) {
    const operation = operationOf.get(`${write.key}\u0000${write.value}`);
    if (operation?.return === undefined) continue;
    const list = byKey.get(write.key) ?? [];
    list.push({ revision: write.revision, call: operation.call, return: operation.return, value: write.value });
    byKey.set(write.key, list);
  }
  const problems: string[] = [];
  for (const [key, list] of byKey) {
    list.sort((left, right) => left.revision - right.revision);
    for (let position = 1; position < list.length; position++) {
      if (list[position]!.revision === list[position - 1]!.revision) problems.push(`${key}: two writes acknowledged at revision ${list[position]!.revision}`);
    }
    // Scanning from the highest revision down: the earliest return among higher revisions must
    // not precede this write's call.
    let earliestLaterReturn = Number.POSITIVE_INFINITY;
    let earliestLater: { revision: number; value: string } | undefined;
    for (let position = list.length - 1; position >= 0; position--) {
      const write = list[position]!;
      if (earliestLater !== undefined && earliestLaterReturn < write.call) {
        problems.push(`${key}: write ${write.value} (revision ${write.revision}) was invoked after write ${earliestLater.value} (revision ${earliestLater.revision}) returned`);
      }
      if (write.return < earliestLaterReturn) {
        earliestLaterReturn = write.return;
        earliestLater = write;
      }
    }
  }
  return capped(problems);
}

/** Counts for the test's report line. */
export function historySummary(history: readonly KvOperation[]): { puts: number; gets: number; pendingPuts: number; pendingGets: number } {
  let puts = 0;
  let gets = 0;
  let pendingPuts = 0;
  let pendingGets = 0;
  for (const operation of history) {
    const pending = operation.return === undefined;
    if (operation.input.kind === 'get') {
      if (pending) pendingGets += 1;
      else gets += 1;
    } else if (pending) pendingPuts += 1;
    else puts += 1;
  }
  return { puts, gets, pendingPuts, pendingGets };
}
