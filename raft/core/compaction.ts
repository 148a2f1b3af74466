// Owns: which applied entries a member forgets without waiting for a snapshot at their index
// (member compaction), and when a leader needs a fresh snapshot to send (snapshot on demand).
// Pure: reads the log and the leader's Progress, changes nothing itself.
//
// One rule for every member of a group. A member keeps, of its applied and durable entries:
//   - the retained tail (`retainEntries` before the applied index), so that a follower slightly
//     behind, or a member that becomes leader, can still be fed from the log without a snapshot;
//   - as leader, also every entry a peer is still being sent: from the lowest match index among
//     its peers, or from the index of the snapshot a peer is being sent (it continues from there
//     once installed). A peer whose match is 0 or below the log's offset does not hold entries
//     back: it needs a snapshot anyway, or its match is not known yet (a new leader's peers
//     before their first answer) and the retained tail covers a peer that was in step with the
//     old leader. So a peer that stopped answering holds back the leader's log only from the
//     point it had reached, and only until a periodic snapshot (compact()) passes that point.
// A follower keeps only the retained tail. A sole member (its configuration names no other
// member) feeds no one and keeps no tail: it forgets what it applied at every call. Entries are
// forgotten in batches of at least the tail's length, so the log's slice per compaction is
// amortised over as many entries as it copies.
//
// Snapshot on demand: a leader that must send a peer entries below its log's offset sends its
// snapshot; when it holds none, or only one older than the offset (a peer installing it could not
// continue from our log), it sends nothing and sets `snapshotWanted` instead. The driver then
// takes a snapshot at its applied index and hands it to compact(), which clears the want; the
// next heartbeat or append starts the transfer. While a snapshot is wanted, member compaction
// stops, so the snapshot the driver is taking (at an applied index at or above the offset when
// it started) is still usable when it arrives.
import { assert } from '../stdx/index.ts';
import type { Raft } from './raft.ts';

/**
 * The index up to which `raft`'s log may be compacted now under the rule above, or undefined
 * when fewer than a batch of entries may go (or a snapshot is wanted).
 */
export function memberCompactionIndex(raft: Raft, retainEntries: number): number | undefined {
  assert(Number.isSafeInteger(retainEntries) && retainEntries >= 0, `retained entries ${retainEntries} is not a count`);
  if (raft.snapshotWanted) return undefined;
  const log = raft.log;
  const offset = log.offsetIndex();
  const tail = raft.peers().length === 0 ? 0 : retainEntries;
  let index = Math.min(log.appliedIndex, log.stableIndex) - tail;
  if (raft.role === 'leader') {
    for (const progress of raft.progress.values()) {
      if (progress.state === 'snapshot') index = Math.min(index, progress.snapshotIndex);
      else if (progress.match >= Math.max(offset, 1)) index = Math.min(index, progress.match);
    }
  }
  if (index - offset < Math.max(tail, 1)) return undefined;
  assert(index <= log.appliedIndex && index <= log.stableIndex, 'only applied, durable entries are compacted');
  return index;
}

/**
 * Leader: whether the snapshot held can be sent to a peer that needs entries below the log's
 * offset; if not, records that a snapshot is wanted (the driver takes one) and returns false.
 */
export function usableSnapshotOrWant(raft: Raft): boolean {
  const snapshot = raft.snapshot;
  if (snapshot !== undefined && snapshot.meta.index >= raft.log.offsetIndex()) return true;
  raft.snapshotWanted = true;
  return false;
}
