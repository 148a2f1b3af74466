// Owns: an API replica's view of the store members' Raft status, for /metrics. Every
// `intervalMs` it gathers each member's status over NATS (the broadcast status subject that
// `kstore cluster status` also uses), keeps the last answer per member, and counts leader
// changes it observed (a new leader id, or the same id in a higher term). Read-only: it never
// proposes, and a member that stops answering drops out of the series after `staleAfterMs`.
import type { LabeledGaugeSource, GaugeSource } from '../api/index.ts';
import type { MemberStatus } from '../raft/index.ts';

/** What the poller needs of deploy/store-client.ts (structural, so tests can stand in). */
export interface StatusSource {
  clusterStatus(gatherMs?: number): Promise<MemberStatus[]>;
}

export interface RaftStatusPollerOptions {
  readonly source: StatusSource;
  /** Between two gathers (default 2 s: about a Prometheus scrape interval's resolution). */
  readonly intervalMs?: number;
  /** How long one gather waits for answers (default 300 ms). */
  readonly gatherMs?: number;
  /** A member not heard from for this long is dropped (default 3 gathers). */
  readonly staleAfterMs?: number;
  readonly now?: () => number;
}

interface Heard {
  readonly status: MemberStatus;
  readonly at: number;
}

export class RaftStatusPoller {
  readonly #source: StatusSource;
  readonly #intervalMs: number;
  readonly #gatherMs: number;
  readonly #staleAfterMs: number;
  readonly #now: () => number;
  readonly #members = new Map<string, Heard>();
  #leader: { readonly id: string; readonly term: number } | undefined;
  #leaderChanges = 0;
  #timer: NodeJS.Timeout | undefined;
  #gathering: Promise<void> | undefined;

  constructor(options: RaftStatusPollerOptions) {
    this.#source = options.source;
    this.#intervalMs = options.intervalMs ?? 2_000;
    this.#gatherMs = options.gatherMs ?? 300;
    this.#staleAfterMs = options.staleAfterMs ?? 3 * this.#intervalMs;
    this.#now = options.now ?? (() => Date.now());
  }

  start(): void {
    if (this.#timer !== undefined) return;
    void this.gather();
    this.#timer = setInterval(() => { void this.gather(); }, this.#intervalMs);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#gathering;
  }

  /** One gather (exposed for tests); concurrent calls share the one in flight. */
  gather(): Promise<void> {
    this.#gathering ??= this.#gatherOnce().finally(() => { this.#gathering = undefined; });
    return this.#gathering;
  }

  async #gatherOnce(): Promise<void> {
    let statuses: MemberStatus[];
    try {
      statuses = await this.#source.clusterStatus(this.#gatherMs);
    } catch {
      statuses = [];
    }
    const at = this.#now();
    for (const status of statuses) this.#members.set(status.id, { status, at });
    for (const [id, heard] of this.#members) if (at - heard.at > this.#staleAfterMs) this.#members.delete(id);
    const leader = statuses.filter((status) => status.role === 'leader').sort((a, b) => b.term - a.term)[0];
    if (leader !== undefined && (this.#leader === undefined || leader.term > this.#leader.term || (leader.term === this.#leader.term && leader.id !== this.#leader.id))) {
      if (this.#leader !== undefined) this.#leaderChanges += 1;
      this.#leader = { id: leader.id, term: leader.term };
    }
  }

  /** Members heard from lately, sorted by id. */
  members(): readonly MemberStatus[] {
    return [...this.#members.values()].map((heard) => heard.status).sort((a, b) => a.id.localeCompare(b.id));
  }

  #newestTerm(): number {
    return Math.max(0, ...this.members().map((status) => status.term));
  }

  leaderChanges(): number {
    return this.#leaderChanges;
  }

  /** The gauges this poller feeds, under the names kstore server uses for its one member. */
  gauges(): readonly (GaugeSource | LabeledGaugeSource)[] {
    const perMember = (read: (status: MemberStatus) => number) => () => this.members().map((status) => ({ labels: { member: status.id }, value: read(status) }));
    return [
      { name: 'kstore_raft_term', help: 'Current Raft term of each store member that answered lately.', labelNames: ['member'], readAll: perMember((status) => status.term) },
      { name: 'kstore_raft_commit_index', help: 'Highest Raft index each store member knows committed.', labelNames: ['member'], readAll: perMember((status) => status.commitIndex) },
      { name: 'kstore_raft_applied_index', help: 'Highest Raft index each store member applied.', labelNames: ['member'], readAll: perMember((status) => status.appliedIndex) },
      // A member last heard from as leader of an older term (killed, partitioned) is not the leader.
      { name: 'kstore_raft_is_leader', help: '1 for the store member that leads the newest term heard of, 0 for the others.', labelNames: ['member'], readAll: perMember((status) => (status.role === 'leader' && status.term === this.#newestTerm() ? 1 : 0)) },
      { name: 'kstore_raft_leader_changes', help: 'Leader changes this API replica observed since it started (new leader id or term).', read: () => this.#leaderChanges },
    ];
  }
}
