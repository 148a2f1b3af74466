// Owns: the node (V8) flags and the allocator settings for kstore processes that share one
// machine's cores with the other members of their cluster: the store members and API replicas
// `kstore cluster up` starts (and deploy/compose.yaml's, on one Docker host); and the Go
// runtime's setting for the nats-servers started beside them. V8 cannot change
// its flags once it runs (setting them from inside the process aborts it at its next GC), nor
// glibc its allocator's settings, so they go on node's command line and in the environment.
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

// --min-semi-space-size=16: the young generation starts, and stays, at V8's largest default size
// (two 16 MB semi-spaces) instead of starting at 1 MB and being resized as V8 sees fit. On the Raft
// leader under load the default sizing went with a full (mark-compact) GC every ~0.5 s, 20–24 in an
// 8 s window against 8–10 on a follower, each freeing a few MB: short-lived objects (the proposals
// in flight, the replies, the event stream's texts) outlived a small young generation and died in
// the old one. With it the leader did 1–2: `npm run bench:ha-write` at 64 clients, three runs
// each, 1.06–1.18 → 0.93–0.95 ms of the cluster's CPU per write (the leader 0.23–0.26 → 0.18),
// 1,425–1,585 → 1,698–1,755 writes/s, p99 106–115 → 82–87 ms (docs/ha-write-cost.md, "The
// leader's full GCs"). It costs each process up to 32 MB of young generation while idle;
// `kstore server` showed no difference with it and keeps the default.

/** Flags placed before the kstore executable for a process that shares its machine with its cluster's other members. */
export const colocatedNodeFlags: readonly string[] = ['--single-threaded-gc', '--min-semi-space-size=16'];

// `kstore server` (`npm start`, and the tests' and benchmarks' servers) runs with the fixed young
// generation too, and keeps V8's parallel collection (a process alone on its machine). Five
// alternated pairs of `npm run bench -- --targets server` at 64 clients (2026-11-29, 22:30–22:42
// UTC): p99 30.5 / 43.4 / 36.6 / 41.3 / 43.4 ms with it against 44.7 / 54.9 / 52.4 / 55.1 / 76.7
// without; at 16 clients 11.6 / 11.3 against 16.9 / 17.2. CPU per write moved with the machine
// (0.21–0.37 ms either way), as an earlier session's three pairs found; resident memory at
// 100,000 objects 2,063–2,074 B per object against 2,122–2,157. V8 cannot take it once running,
// so it goes on node's command line: the `start` script in package.json carries it.

/** Flags placed before the kstore executable for `kstore server`. */
export const serverNodeFlags: readonly string[] = ['--min-semi-space-size=16'];

/**
 * KSTORE_NODE_FLAGS's space-separated node flags: a developer knob for experiments with V8's
 * options, placed after kstore's own (a later flag wins: `--no-single-threaded-gc` undoes one).
 */
export function experimentNodeFlags(env: NodeJS.ProcessEnv = process.env): string[] {
  return (env.KSTORE_NODE_FLAGS ?? '').split(' ').filter((flag) => flag !== '');
}

// MALLOC_ARENA_MAX=2, MALLOC_TRIM_THRESHOLD_=1048576: glibc's allocator keeps two arenas instead of
// one per thread that ever allocated, and gives free memory at the top of its heap back above
// 1 MiB (which also keeps large buffers, above 128 KiB, in their own mappings, unmapped when
// freed). The memory a process frees (NATS payloads, WAL buffers, the snapshot's compression) is
// what glibc kept of it beyond the V8 heap: with 100,000 objects (`npm run bench:scale -- --target
// cluster`, two alternated pairs) it fell in every process of both pairs, API replicas 101–146 →
// 38–45 B per object, followers 232–384 → 129–242, the leader 439–557 → 398–448, with no more CPU
// per create (1.08–1.09 ms against 1.05–1.08) (docs/memory-and-restart.md, "Afternoon runs").

/** Environment variables for a process that shares its machine with its cluster's other members (the user's own values win). */
export const colocatedEnvironment: Readonly<Record<string, string>> = { MALLOC_ARENA_MAX: '2', MALLOC_TRIM_THRESHOLD_: '1048576' };

// GOMAXPROCS=1 for the nats-servers of such a cluster: the Go runtime runs goroutines on one OS
// thread at a time instead of one per core, so a server that wakes for each small message does
// not hand work between threads (and spin waiting for it) on cores the other seven processes
// need. `npm run bench:ha-write` at 64 clients on two cores, three alternated pairs on the AMD VM
// (2026-11-29 evening): the three nats-servers' CPU per write 0.308 / 0.410 / 0.333 → 0.262 /
// 0.274 / 0.310 ms, 0.83–0.84 → 0.66–0.70 of the Raft leader's in the same run; the cluster's
// total moved with the machine (docs/ha-write-cost.md, "The nats-servers on one thread"). A
// nats-server on a machine of its own, serving many clients, should use its cores: the
// Kubernetes manifests leave it alone.

/** Environment variables for a nats-server that shares its machine with its cluster's other members (the user's own values win). */
export const colocatedNatsEnvironment: Readonly<Record<string, string>> = { GOMAXPROCS: '1' };
