// Owns: the store's request/reply face on NATS: proposals (one or a batch), ReadIndex and member
// status, the subjects they use and the JSON replies a client reads (the client is
// deploy/store-client.ts; the batch format is proposal-batch.ts).
//
// Subjects, for cluster C and group G (P = kstore.store.C.G):
//   P.propose-batch      queue group: any one member answers; a proposal batch (proposal-batch.ts)
//   P.propose-batch.<member>  that member only (a client that knows the leader; forwarding)
//   P.propose            queue group;  P.propose.<member>: one proposal, its bytes the payload
//                        (the format before batches; kept for clients of earlier versions)
//   P.read-index         queue group;  P.read-index.<member>  that member only
//   P.status             every member answers (scatter-gather);  P.status.<member>
// A member that receives a queue-group request while another member is leader forwards it to
// the leader's own subject with the client's reply inbox, bytes as received (one extra hop
// inside NATS, no extra round trip, no decoding; nats-server's own Raft forwards proposals the
// same way). A request on a member's own subject is never forwarded again: a non-leader answers
// `notLeader` with the leader it knows, so forwarding cannot loop. Nor is a request forwarded to
// a leader this member has not heard from within leaderContactMaxMs (default half an election
// timeout, five heartbeats): a publish to a dead leader's subject vanishes and the client would
// wait out its attempt timeout, so such a member answers `notLeader` without a leader and the
// client asks again after a short back-off (by then the leader is heard from again, or an
// election is under way).
//
// Proposal payloads are opaque entry bytes (for kstore: an encoded CommandEnvelope whose session
// makes retries apply at most once, deduplicated in apply — Raft thesis §6.3); they are copied out
// of the NATS receive buffer before proposing. A batch's items are proposed one by one in the
// same turn, so the driver takes them into one append (group commit), and the batch is answered
// once, when every item has an outcome. Every item taken counts against serviceRequestsInFlightMax
// until the batch's reply; items beyond the room left are answered `overloaded` (the client
// retries them alone). Replies are JSON: this module never interprets the Result beyond
// JSON.stringify.
//
// Must not: retry (clients do, with the same session and sequence), or know what commands mean.
import type { Msg, NatsConnection, Subscription } from '@nats-io/transport-node';
import { checkSubjectToken } from '../transport/index.ts';
import { assert } from '../stdx/index.ts';
import { isNotLeader, isProposalDropped } from './errors.ts';
import type { RaftStatus } from './options.ts';
import type { ProposalOutcome } from './proposals.ts';
import { decodeProposalBatch, proposalBatchVersion } from './proposal-batch.ts';
import type { ProposeBatchReply, ProposeReply } from './proposal-batch.ts';

export type { ProposeReply, ProposeBatchReply } from './proposal-batch.ts';

/**
 * Proposals and reads this member has accepted and not yet answered. The driver's own queue
 * holds 10 000 proposals; 4096 outstanding requests per member is far above what an API tier
 * keeps in flight (one per concurrent HTTP write) and bounds the reply closures held here.
 * Beyond it the member answers `overloaded` at once and the client backs off.
 */
export const serviceRequestsInFlightMax = 4096;

/**
 * A follower forwards only to a leader it heard from within this many ms: half the default
 * election timeout (10 ticks of 100 ms), i.e. five missed heartbeats.
 */
export const leaderContactMaxMsDefault = 500;

/** Queue group shared by every member of a group, so one member answers each request. */
export const serviceQueueGroup = 'kstore-store';

export type ReadIndexReply =
  | { readonly type: 'ok'; readonly index: number; readonly leaderId: string }
  | { readonly type: 'notLeader'; readonly leaderId: string | undefined }
  | { readonly type: 'overloaded' }
  | { readonly type: 'failed'; readonly message: string };

export interface MemberStatus extends RaftStatus {
  readonly cluster: string;
  readonly group: string;
  /** The member's data dir space, when its owner reports it. */
  readonly storage?: MemberStorageReport;
}

/** A member's data dir space as its owner measures it; `alarm` is the reason while raised. */
export interface MemberStorageReport {
  readonly usedBytes: number;
  readonly quotaBytes: number;
  readonly freeBytes: number;
  readonly reserveBytes: number;
  readonly alarm: string | undefined;
}

export interface StoreSubjects {
  readonly proposeBatch: string;
  readonly propose: string;
  readonly readIndex: string;
  readonly status: string;
  proposeBatchTo(member: string): string;
  proposeTo(member: string): string;
  readIndexTo(member: string): string;
  statusOf(member: string): string;
}

export function storeSubjects(cluster: string, group: string): StoreSubjects {
  checkSubjectToken('cluster', cluster);
  checkSubjectToken('group', group);
  const prefix = `kstore.store.${cluster}.${group}`;
  const member = (base: string, id: string): string => {
    checkSubjectToken('member', id);
    return `${base}.${id}`;
  };
  return {
    proposeBatch: `${prefix}.propose-batch`, propose: `${prefix}.propose`, readIndex: `${prefix}.read-index`, status: `${prefix}.status`,
    proposeBatchTo: (id) => member(`${prefix}.propose-batch`, id),
    proposeTo: (id) => member(`${prefix}.propose`, id),
    readIndexTo: (id) => member(`${prefix}.read-index`, id),
    statusOf: (id) => member(`${prefix}.status`, id),
  };
}

/** What the service needs of a RaftNode (structural, so tests can stand in). */
export interface ProposalTarget<Result> {
  propose(data: Uint8Array): Promise<ProposalOutcome<Result>>;
  readIndex(): Promise<number>;
  status(): RaftStatus;
}

export interface ProposalServiceOptions<Result> {
  readonly connection: NatsConnection;
  readonly cluster: string;
  readonly group: string;
  readonly member: string;
  readonly node: ProposalTarget<Result>;
  /** Default leaderContactMaxMsDefault; scale it with the election timeout if ticks differ. */
  readonly leaderContactMaxMs?: number;
  readonly log?: (message: string, fields?: Record<string, unknown>) => void;
  /**
   * The owner's admission of a proposal this member would propose as leader: the refusal's
   * message, or undefined to propose it. Called only on the member that proposes (never on a
   * forwarding one), so it sees the payload exactly once.
   */
  readonly admit?: (data: Uint8Array) => string | undefined;
  /** The member's data dir space, added to its status replies. */
  readonly storage?: () => MemberStorageReport;
}

const textEncoder = new TextEncoder();

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export class ProposalService<Result> {
  readonly subjects: StoreSubjects;
  readonly #connection: NatsConnection;
  readonly #cluster: string;
  readonly #group: string;
  readonly #member: string;
  readonly #node: ProposalTarget<Result>;
  readonly #log: (message: string, fields?: Record<string, unknown>) => void;
  readonly #subscriptions: Subscription[] = [];
  #inFlight = 0;
  #stopped = false;
  #forwarded = 0;
  #staleLeaderAnswers = 0;
  readonly #leaderContactMaxMs: number;
  readonly #admit: ((data: Uint8Array) => string | undefined) | undefined;
  readonly #storage: (() => MemberStorageReport) | undefined;

  private constructor(options: ProposalServiceOptions<Result>) {
    this.subjects = storeSubjects(options.cluster, options.group);
    checkSubjectToken('member', options.member);
    this.#connection = options.connection;
    this.#cluster = options.cluster;
    this.#group = options.group;
    this.#member = options.member;
    this.#node = options.node;
    this.#leaderContactMaxMs = options.leaderContactMaxMs ?? leaderContactMaxMsDefault;
    assert(this.#leaderContactMaxMs > 0, 'leaderContactMaxMs is positive');
    this.#log = options.log ?? (() => {});
    this.#admit = options.admit;
    this.#storage = options.storage;
  }

  /** Subscribes on every service subject; answers until stop(). */
  static start<Result>(options: ProposalServiceOptions<Result>): ProposalService<Result> {
    const service = new ProposalService(options);
    service.#listen();
    return service;
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  /** Requests this member passed on to the leader (for tests and metrics). */
  get forwarded(): number {
    return this.#forwarded;
  }

  /** Queue-group requests answered `notLeader` because the leader was not heard from lately. */
  get staleLeaderAnswers(): number {
    return this.#staleLeaderAnswers;
  }

  /** Unsubscribes (letting requests in progress finish) and waits for the unsubscribe to reach the server. */
  async stop(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    const subscriptions = this.#subscriptions.splice(0);
    if (this.#connection.isClosed()) return;
    await Promise.all(subscriptions.map((subscription) => subscription.drain().catch(() => undefined)));
  }

  #listen(): void {
    const { subjects } = this;
    const member = this.#member;
    this.#subscribe(subjects.proposeBatch, serviceQueueGroup, (message) => this.#onProposeBatch(message, true));
    this.#subscribe(subjects.proposeBatchTo(member), undefined, (message) => this.#onProposeBatch(message, false));
    this.#subscribe(subjects.propose, serviceQueueGroup, (message) => this.#onPropose(message, true));
    this.#subscribe(subjects.proposeTo(member), undefined, (message) => this.#onPropose(message, false));
    this.#subscribe(subjects.readIndex, serviceQueueGroup, (message) => this.#onReadIndex(message, true));
    this.#subscribe(subjects.readIndexTo(member), undefined, (message) => this.#onReadIndex(message, false));
    this.#subscribe(subjects.status, undefined, (message) => this.#onStatus(message));
    this.#subscribe(subjects.statusOf(member), undefined, (message) => this.#onStatus(message));
    assert(this.#subscriptions.length === 8, 'every service subject is subscribed');
  }

  #subscribe(subject: string, queue: string | undefined, handle: (message: Msg) => void): void {
    const subscription = this.#connection.subscribe(subject, {
      ...(queue === undefined ? {} : { queue }),
      callback: (error, message) => {
        if (error !== null) {
          this.#log('store service subscription error', { subject, error: error.message });
          return;
        }
        if (!this.#stopped) handle(message);
      },
    });
    this.#subscriptions.push(subscription);
  }

  /**
   * Passes a queue-group request on to the leader if another member leads and was heard from
   * lately ('forwarded'), answers `staleLeader` if it was not ('answered'), or leaves it to this
   * member ('local').
   */
  #forwardToLeader(message: Msg, viaQueue: boolean, subjectTo: (member: string) => string, staleLeader: unknown): 'forwarded' | 'answered' | 'local' {
    if (!viaQueue || message.reply === undefined || message.reply === '') return 'local';
    const status = this.#node.status();
    if (status.role === 'leader' || status.leaderId === undefined || status.leaderId === this.#member) return 'local';
    if (status.leaderContactMs !== undefined && status.leaderContactMs > this.#leaderContactMaxMs) {
      this.#staleLeaderAnswers += 1;
      this.#reply(message, staleLeader);
      return 'answered';
    }
    try {
      this.#connection.publish(subjectTo(status.leaderId), message.data, { reply: message.reply });
      this.#forwarded += 1;
      return 'forwarded';
    } catch (error) {
      this.#log('store service forward failed', { error: errorMessage(error) });
      return 'local';
    }
  }

  #onPropose(message: Msg, viaQueue: boolean): void {
    const notLeader: ProposeReply<Result> = { type: 'notLeader', leaderId: undefined };
    if (this.#forwardToLeader(message, viaQueue, this.subjects.proposeTo, notLeader) !== 'local') return;
    if (this.#inFlight >= serviceRequestsInFlightMax) {
      this.#reply(message, { type: 'overloaded' } satisfies ProposeReply<Result>);
      return;
    }
    // Copy: message.data is a view into the client's receive buffer, which NATS reuses.
    this.#inFlight += 1;
    void this.#proposeOne(new Uint8Array(message.data)).then((reply) => {
      this.#inFlight -= 1;
      this.#reply(message, reply);
    });
  }

  /** A batch: every item proposed in this turn (one append), one reply once all have an outcome. */
  #onProposeBatch(message: Msg, viaQueue: boolean): void {
    const answerAll = (reply: ProposeReply<Result>): ProposeBatchReply<Result> => ({ version: proposalBatchVersion, all: reply });
    if (this.#forwardToLeader(message, viaQueue, this.subjects.proposeBatchTo, answerAll({ type: 'notLeader', leaderId: undefined })) !== 'local') return;
    const room = serviceRequestsInFlightMax - this.#inFlight;
    if (room <= 0) {
      this.#reply(message, answerAll({ type: 'overloaded' }));
      return;
    }
    const batch = decodeProposalBatch(message.data);
    if (!batch.ok) {
      this.#reply(message, answerAll({ type: 'failed', message: batch.problem }));
      return;
    }
    const proposed = Math.min(room, batch.items.length);
    this.#inFlight += proposed;
    const overloaded: ProposeReply<Result> = { type: 'overloaded' };
    const outcomes = batch.items.map((data, position) => (position < proposed ? this.#proposeOne(data) : overloaded));
    void Promise.all(outcomes).then((items) => {
      this.#inFlight -= proposed;
      this.#reply(message, { version: proposalBatchVersion, items } satisfies ProposeBatchReply<Result>);
    });
  }

  /** Admits and proposes one proposal's bytes (owned by the caller); never rejects. */
  #proposeOne(data: Uint8Array): Promise<ProposeReply<Result>> {
    const refusal = this.#admit?.(data);
    if (refusal !== undefined) return Promise.resolve({ type: 'refused', message: refusal });
    return this.#node.propose(data).then(
      (outcome): ProposeReply<Result> => ({ type: 'ok', index: outcome.index, result: outcome.result, leaderId: this.#member }),
      (error: unknown): ProposeReply<Result> => {
        if (isNotLeader(error)) return { type: 'notLeader', leaderId: error.leaderId };
        if (isProposalDropped(error)) return error.reason === 'overloaded' ? { type: 'overloaded' } : { type: 'dropped', reason: error.reason };
        return { type: 'failed', message: errorMessage(error) };
      },
    );
  }

  #onReadIndex(message: Msg, viaQueue: boolean): void {
    const notLeader: ReadIndexReply = { type: 'notLeader', leaderId: undefined };
    if (this.#forwardToLeader(message, viaQueue, this.subjects.readIndexTo, notLeader) !== 'local') return;
    if (this.#inFlight >= serviceRequestsInFlightMax) {
      this.#reply(message, { type: 'overloaded' } satisfies ReadIndexReply);
      return;
    }
    this.#inFlight += 1;
    this.#node.readIndex().then(
      (index): ReadIndexReply => ({ type: 'ok', index, leaderId: this.#member }),
      (error: unknown): ReadIndexReply => {
        if (isNotLeader(error)) return { type: 'notLeader', leaderId: error.leaderId };
        if (isProposalDropped(error) && error.reason === 'overloaded') return { type: 'overloaded' };
        return { type: 'failed', message: errorMessage(error) };
      },
    ).then((reply) => {
      this.#inFlight -= 1;
      this.#reply(message, reply);
    });
  }

  #onStatus(message: Msg): void {
    const status: MemberStatus = { ...this.#node.status(), cluster: this.#cluster, group: this.#group, ...(this.#storage === undefined ? {} : { storage: this.#storage() }) };
    this.#reply(message, status);
  }

  #reply(message: Msg, reply: unknown): void {
    if (message.reply === undefined || message.reply === '' || this.#connection.isClosed()) return;
    try {
      message.respond(textEncoder.encode(JSON.stringify(reply)));
    } catch (error) {
      this.#log('store service reply failed', { error: errorMessage(error) });
    }
  }
}
