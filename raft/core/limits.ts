// Owns: the numeric limits of the Raft core, each with its reason (STYLE rule 4). Pure.

/**
 * Entries carried by one appendEntries message. 256 keeps a message well under NATS' default
 * 1 MiB max payload for typical Kubernetes objects (a few KiB each) while amortizing per-message
 * overhead; larger backlogs are sent as a pipeline of such messages.
 */
export const entriesPerAppendMax = 256;

/**
 * Unacknowledged appends in flight to one follower in replicate state. Bounds the memory a slow
 * follower can pin in transit (64 × 256 entries) and makes a lost message cost at most one
 * window before the follower's rejection resets the pipeline.
 */
export const inflightAppendsMax = 64;

/**
 * Committed entries handed to the driver in one Ready. Bounds one loop iteration's apply time
 * (a restart may replay a long log) so ticks and messages keep being processed between batches.
 */
export const committedEntriesPerReadyMax = 1024;

/**
 * ReadIndex requests queued at the leader. Each waits at most one heartbeat round; beyond 4096
 * outstanding reads the node is overloaded and the driver refuses new ones.
 */
export const readRequestsMax = 4096;

/**
 * Bytes of one entry's data. 4 MiB fits the largest Kubernetes object etcd accepts by default
 * (1.5 MiB request limit) with room for the command envelope; the WAL rejects longer records.
 */
export const entryDataBytesMax = 4 * 1024 * 1024;

/**
 * Default bytes of snapshot data in one InstallSnapshot chunk. NATS' default max_payload is
 * 1 MiB for a whole message; 512 KiB leaves room for the envelope and keeps one chunk from
 * monopolising a member's link for long (heartbeats share it). Only one chunk per follower is
 * in flight, so a chunk is also the memory a slow follower can pin at the leader.
 */
export const snapshotChunkBytesDefault = 512 * 1024;

/**
 * Bytes of a snapshot a follower assembles in memory from chunks. 1 GiB is far above a
 * Kubernetes store's state (etcd's default quota is 2 GiB of b-tree pages with much overhead)
 * and below what a Uint8Array can hold; a larger snapshot is refused (an assertion: the leader
 * built it, so it is a configuration bug, not an operating error).
 */
export const snapshotBytesMax = 1024 * 1024 * 1024;

/**
 * Entries kept in memory behind a new snapshot when the log is compacted, and behind the applied
 * index when a member forgets applied entries (compaction.ts, which also forgets them in batches
 * of this many). etcd's SnapshotCatchUpEntries is 5000. A follower slightly behind, or one a new
 * leader finds behind, then catches up from the log instead of needing the whole snapshot;
 * 1024 to 2048 entries of a few KiB each is a few MiB.
 */
export const compactionRetainEntries = 1024;

/**
 * How far behind the leader's last index a learner's match may be for it to be promoted to
 * voter (thesis §4.2.1: a new server catches up before it counts in majorities, or the
 * group could stall until it does). 1024 entries is a few appends: a learner that close
 * catches up within a round trip or two, while under steady load the last index keeps moving,
 * so demanding an exact match would starve promotion.
 */
export const learnerCatchUpLagEntriesMax = 1024;
