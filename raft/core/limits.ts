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
