// Owns: the node (V8) flags for kstore processes that share one machine's cores with the other
// members of their cluster: the store members and API replicas `kstore cluster up` starts (and
// deploy/compose.yaml's, on one Docker host). V8 cannot change these once it runs (setting them
// from inside the process aborts it at its next GC), so they go on node's command line.
//
// --single-threaded-gc: V8 does its garbage collection on the JavaScript thread instead of
// spreading scavenges and marking over its helper threads. Eight processes on one machine's
// cores (three nats-servers, three stores, two API replicas) gain nothing from the helpers'
// parallelism and pay for it: measured with `npm run bench:ha-write` at 64 clients on two
// cores, three alternated pairs, 1.085 → 1.017 ms of the cluster's CPU per write, 1,565 → 1,673
// writes/s, p99 130 → 95 ms. A process alone on its machine is the other case: `kstore server`
// under the same load spent the same CPU per write either way and had a worse p99 at 64 clients
// on one thread (63–67 ms against 30–44), so it, and a member that runs on a machine of its own
// (the systemd units, the Kubernetes manifests), keeps V8's default (docs/ha-write-cost.md,
// "V8's garbage collection on one thread").

/** Flags placed before the kstore executable for a process that shares its machine with its cluster's other members. */
export const colocatedNodeFlags: readonly string[] = ['--single-threaded-gc'];
