// Owns: the client of a multi-member kstore store over NATS (the counterpart of
// raft/node/proposal-service.ts): proposing commands and asking for read indexes without
// knowing the leader, following leader changes by itself, and client sessions that make a
// retried proposal apply at most once (Raft thesis §6.3).
//
// Sessions: a client owns a small pool of sessions, each a random uuid with a sequence that
// increments per command. A session carries at most one proposal at a time (actors/ keeps only
// the latest result per session), so concurrent proposals take different sessions. An attempt
// that times out, finds no responder, or comes back `dropped`, `notLeader` or `failed` is sent
// again with the SAME session and sequence until the call's deadline: if an earlier attempt did
// commit, apply answers the retry with the stored result instead of applying twice. After a
// deadline the session is retired (its last command's fate is unknown).
//
// Leader: replies name the leader; requests go to the leader's own subject while it is known,
// and to the queue-group subject (any member, which forwards) otherwise.
//
// Batches: the proposal attempts made in one turn of the event loop travel together, one NATS
// message per destination (`kstore.store.<c>.<g>.propose-batch[.<member>]`, the format of
// raft/node/proposal-batch.ts, sent by proposal-batcher.ts) and one reply carrying each item's
// outcome. Batching changes nothing of the rules below: each item keeps its own session and
// sequence, its own attempt timeout, back-off and deadline, and is retried alone (its retry
// joins whatever batch is gathering when it is retried).
//
// Attempt timeouts: a call's first attempt waits firstAttemptTimeoutMs (500 ms); each attempt
// after a timeout waits twice as long, up to attemptTimeoutMs (2 s); any answer resets it. A
// request forwarded to a leader that just died gets no answer at all, and with a 2 s first
// attempt a client saw its first commit after a failover up to ~2 s after the election.
//
// ReadIndex and status requests are single requests (nats.js request()); concurrent ReadIndex
// calls share one (readIndex()).
//
// Must not: know Raft internals; it speaks only the replies of the proposal service.
import { StorageAlarmError } from './storage-quota.ts';
import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { RequestError, TimeoutError } from '@nats-io/transport-node';
import type { Msg, NatsConnection } from '@nats-io/transport-node';
import { commandVersion, encodeCommand } from '../actors/index.ts';
import type { Command, CommandResult } from '../actors/index.ts';
import { storeSubjects } from '../raft/index.ts';
import type { MemberStatus, ProposeReply, ReadIndexReply, StoreSubjects } from '../raft/index.ts';
import { ProposalBatcher } from './proposal-batcher.ts';
import type { BatchAnswer, ProposalBatcherStats, RequestAnswer as Answer } from './proposal-batcher.ts';

/**
 * One attempt's timeout. A healthy leader answers in milliseconds; an attempt still unanswered
 * after 2 s hit a dead or partitioned leader (elections take 1–2 s with default ticks), so it is
 * retried rather than waited on.
 */
export const attemptTimeoutMsDefault = 2_000;
/**
 * The first attempt's timeout (and after any answer): a healthy leader answers well within it
 * (p99 tens of ms; snapshots no longer pause the members), so waiting longer only delays the
 * retry that finds the new leader after a failover. Retrying is safe: same session and sequence.
 */
export const firstAttemptTimeoutMsDefault = 500;
/** A call's deadline across all its attempts: the API tier's own store timeout (30 s). */
export const callDeadlineMsDefault = 30_000;
/**
 * Sessions per client = proposals in flight per client. The store's session table keeps 10 000
 * sessions (LRU); a handful of API replicas with 256 each stay far below it, so a retry always
 * finds its session's result. Callers beyond 256 wait for a free session.
 */
export const clientSessionsMax = 256;
/** Callers waiting for a free session; beyond this the client is overloaded and says so at once. */
export const sessionWaitersMax = 10_000;
/**
 * Back-off between attempts while no leader is known: from 25 ms doubling to 200 ms. During an
 * election the client polls at this pace, so the cap is also the worst delay between the new
 * leader's election and the client finding it (400 ms showed up as ~0.4 s of extra failover
 * time in bench:raft); the answers it polls for are small notLeader replies.
 */
export const retryBackoffMsMin = 25;
export const retryBackoffMsMax = 200;
/** Attempts in a row sent without back-off (following leader hints, after timeouts). */
export const immediateRetriesMax = 3;
/** How long clusterStatus() gathers answers from members. */
export const statusGatherMsDefault = 500;

export const StoreClientErrorCodes = {
  Deadline: 'DEADLINE',
  Rejected: 'REJECTED',
  Overloaded: 'OVERLOADED',
  Closed: 'CLOSED',
} as const;
export type StoreClientErrorCode = (typeof StoreClientErrorCodes)[keyof typeof StoreClientErrorCodes];

/** The call's deadline passed. For a proposal: it may or may not have been applied. */
export class StoreDeadlineError extends Error {
  readonly code = StoreClientErrorCodes.Deadline;
  readonly attempts: number;

  constructor(what: string, deadlineMs: number, attempts: number, lastProblem: string, options?: ErrorOptions) {
    super(`${what}: no answer within ${deadlineMs} ms after ${attempts} attempts (last: ${lastProblem})`, options);
    this.name = 'StoreDeadlineError';
    this.attempts = attempts;
  }
}

/** The store refused the proposal for good (too large); retrying cannot help. */
export class StoreRejectedError extends Error {
  readonly code = StoreClientErrorCodes.Rejected;

  constructor(reason: string) {
    super(`proposal rejected: ${reason}`);
    this.name = 'StoreRejectedError';
  }
}

/** Too many callers are waiting for a session of this client. */
export class StoreClientOverloadedError extends Error {
  readonly code = StoreClientErrorCodes.Overloaded;

  constructor() {
    super(`more than ${sessionWaitersMax} proposals waiting for a client session`);
    this.name = 'StoreClientOverloadedError';
  }
}

export class StoreClientClosedError extends Error {
  readonly code = StoreClientErrorCodes.Closed;

  constructor() {
    super('store client is closed');
    this.name = 'StoreClientClosedError';
  }
}

export function isStoreDeadline(error: unknown): error is StoreDeadlineError {
  return error instanceof StoreDeadlineError;
}

export interface StoreClientOptions {
  readonly connection: NatsConnection;
  readonly cluster: string;
  readonly group: string;
  /** The longest attempt timeout (attempts after timeouts double up to it). */
  readonly attemptTimeoutMs?: number;
  /** Default min(firstAttemptTimeoutMsDefault, attemptTimeoutMs). */
  readonly firstAttemptTimeoutMs?: number;
  readonly deadlineMs?: number;
  /** Sees every proposal attempt as it is sent: its subject and timeout (for tests and metrics). */
  readonly onProposalAttempt?: (subject: string, timeoutMs: number) => void;
}

interface Session {
  readonly id: string;
  sequence: number;
}

/** What one attempt concluded: a final value, or why to try again (and whom to ask). */
type Attempt<T> =
  | { readonly done: true; readonly value: T }
  | { readonly done: false; readonly problem: string; readonly backoff: boolean; readonly timedOut?: boolean };

const textDecoder = new TextDecoder();

export class StoreClient {
  readonly subjects: StoreSubjects;
  readonly #connection: NatsConnection;
  readonly #proposals: ProposalBatcher<CommandResult>;
  readonly #attemptTimeoutMs: number;
  readonly #firstAttemptTimeoutMs: number;
  readonly #deadlineMs: number;
  readonly #idleSessions: Session[] = [];
  #sessionsOpen = 0;
  #sessionWaiters: { readonly resolve: (session: Session) => void; readonly reject: (error: Error) => void }[] = [];
  #leaderId: string | undefined = undefined;
  /** Requests made in this turn of the event loop, sent together (#coalescedRequest). */
  #pendingRequests: (() => void)[] = [];
  /** The ReadIndex batch not sent yet (callers join it), and the one last sent. */
  #readIndexNext: Promise<number> | undefined;
  #readIndexInFlight: Promise<number> | undefined;
  #closed = false;
  #retries = 0;

  constructor(options: StoreClientOptions) {
    this.subjects = storeSubjects(options.cluster, options.group);
    this.#connection = options.connection;
    this.#proposals = new ProposalBatcher(options.connection, options.onProposalAttempt);
    this.#attemptTimeoutMs = options.attemptTimeoutMs ?? attemptTimeoutMsDefault;
    this.#firstAttemptTimeoutMs = options.firstAttemptTimeoutMs ?? Math.min(firstAttemptTimeoutMsDefault, this.#attemptTimeoutMs);
    this.#deadlineMs = options.deadlineMs ?? callDeadlineMsDefault;
    if (!(this.#attemptTimeoutMs > 0 && this.#deadlineMs >= this.#attemptTimeoutMs)) {
      throw new TypeError('attemptTimeoutMs must be > 0 and deadlineMs >= attemptTimeoutMs');
    }
    if (!(this.#firstAttemptTimeoutMs > 0 && this.#firstAttemptTimeoutMs <= this.#attemptTimeoutMs)) {
      throw new TypeError('firstAttemptTimeoutMs must be > 0 and <= attemptTimeoutMs');
    }
  }

  /** Attempts beyond the first, over the client's life (for tests and metrics). */
  get retries(): number {
    return this.#retries;
  }

  /** Proposal batches sent and the attempts they carried (for tests and metrics). */
  get proposalBatches(): ProposalBatcherStats {
    return this.#proposals.stats;
  }

  /** The leader as last reported by a member; undefined while unknown. */
  get leaderId(): string | undefined {
    return this.#leaderId;
  }

  /** Proposes `command` under a client session; resolves with its result once applied. */
  async propose(command: Command): Promise<CommandResult> {
    const session = await this.#acquireSession();
    session.sequence += 1;
    const payload = encodeCommand({ version: commandVersion, command, session: { id: session.id, sequence: session.sequence } });
    let healthy = false;
    try {
      const result = await this.#call('propose', (leader) => (leader === undefined ? this.subjects.proposeBatch : this.subjects.proposeBatchTo(leader)),
        (subject, timeoutMs): Promise<BatchAnswer<CommandResult>> => this.#proposals.send(subject, payload, timeoutMs),
        (reply: ProposeReply<CommandResult>) => this.#proposeOutcome(reply));
      healthy = true;
      return result;
    } finally {
      this.#releaseSession(session, healthy);
    }
  }

  /**
   * A revision every write acknowledged before this call is at or below (linearizable read
   * point). Concurrent callers share round trips: a call joins the next request that has not
   * been sent yet (one is sent as soon as the previous one answered), so any request a caller
   * gets its index from was sent after the call began — still a valid read point for it (the
   * batching of etcd's linearizable reads). Under N concurrent Most Recent reads the leader sees
   * about one ReadIndex per round trip instead of N.
   */
  readIndex(): Promise<number> {
    if (this.#readIndexNext !== undefined) return this.#readIndexNext;
    const previous = this.#readIndexInFlight;
    const next = new Promise<number>((resolve, reject) => {
      const send = (): void => {
        if (this.#readIndexNext === next) this.#readIndexNext = undefined;
        const sent = this.#call('read index', (leader) => (leader === undefined ? this.subjects.readIndex : this.subjects.readIndexTo(leader)),
          (subject, timeoutMs) => this.#request<ReadIndexReply>(subject, new Uint8Array(0), timeoutMs),
          (reply: ReadIndexReply) => this.#readIndexOutcome(reply));
        this.#readIndexInFlight = sent;
        sent.then(resolve, reject);
      };
      // Always after a microtask at least, so the calls of this synchronous run join this batch.
      void (previous ?? Promise.resolve(0)).then(send, send);
    });
    this.#readIndexNext = next;
    return next;
  }

  /** Status of every member that answers within `gatherMs`, sorted by id. */
  async clusterStatus(gatherMs = statusGatherMsDefault): Promise<MemberStatus[]> {
    const statuses: MemberStatus[] = [];
    const replies = await this.#connection.requestMany(this.subjects.status, new Uint8Array(0), { strategy: 'timer', maxWait: gatherMs });
    for await (const reply of replies) {
      if (reply.data.length > 0) statuses.push(JSON.parse(textDecoder.decode(reply.data)) as MemberStatus);
    }
    return statuses.sort((left, right) => left.id.localeCompare(right.id));
  }

  /** Status of one member; rejects if it does not answer within one attempt timeout. */
  async memberStatus(member: string): Promise<MemberStatus> {
    const reply = await this.#connection.request(this.subjects.statusOf(member), new Uint8Array(0), { timeout: this.#attemptTimeoutMs });
    return JSON.parse(textDecoder.decode(reply.data)) as MemberStatus;
  }

  /** Rejects callers waiting for a session; calls in progress finish (or meet their deadline). */
  close(): void {
    this.#closed = true;
    const waiters = this.#sessionWaiters;
    this.#sessionWaiters = [];
    for (const waiter of waiters) waiter.reject(new StoreClientClosedError());
    this.#proposals.close();
  }

  async #call<Reply, T>(what: string, subjectFor: (leader: string | undefined) => string, send: (subject: string, timeoutMs: number) => Promise<Answer<Reply>>,
    outcome: (reply: Reply) => Attempt<T>): Promise<T> {
    const deadline = Date.now() + this.#deadlineMs;
    let backoffMs = retryBackoffMsMin;
    let lastProblem = 'none';
    let immediateRetries = 0;
    let timeoutMs = this.#firstAttemptTimeoutMs;
    for (let attempt = 1; ; attempt++) {
      if (this.#closed) throw new StoreClientClosedError();
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw new StoreDeadlineError(what, this.#deadlineMs, attempt - 1, lastProblem);
      if (attempt > 1) this.#retries += 1;
      const asked = this.#leaderId;
      const result = await this.#attempt(subjectFor(asked), Math.min(timeoutMs, remaining), asked, send, outcome);
      if (result.done) return result.value;
      lastProblem = result.problem;
      timeoutMs = result.timedOut ? Math.min(timeoutMs * 2, this.#attemptTimeoutMs) : this.#firstAttemptTimeoutMs;
      // Follow a leader hint (or retry a timeout) at once, but not endlessly: members that
      // disagree about the leader during an election would otherwise bounce the request.
      immediateRetries = result.backoff ? 0 : immediateRetries + 1;
      if (!result.backoff && immediateRetries <= immediateRetriesMax) continue;
      await delay(Math.min(backoffMs, Math.max(0, deadline - Date.now())));
      backoffMs = Math.min(backoffMs * 2, retryBackoffMsMax);
    }
  }

  /**
   * Sends a request in the next setImmediate together with every other request made in this
   * turn of the event loop, so nats.js writes them to the socket in one write: each HTTP request
   * is its own I/O callback, and nats.js flushes after each one's microtasks otherwise (measured:
   * socket writes were ~15% of an API replica's CPU under a create load, most of it loopback TCP).
   */
  #coalescedRequest(subject: string, payload: Uint8Array, timeoutMs: number): Promise<Msg> {
    return new Promise((resolve, reject) => {
      this.#pendingRequests.push(() => { this.#connection.request(subject, payload, { timeout: timeoutMs }).then(resolve, reject); });
      if (this.#pendingRequests.length === 1) {
        setImmediate(() => {
          const batch = this.#pendingRequests;
          this.#pendingRequests = [];
          for (const send of batch) send();
        });
      }
    });
  }

  /** One request/reply through nats.js (ReadIndex), its failures as an Answer. */
  async #request<Reply>(subject: string, payload: Uint8Array, timeoutMs: number): Promise<Answer<Reply>> {
    try {
      const message = await this.#coalescedRequest(subject, payload, timeoutMs);
      return { kind: 'reply', reply: JSON.parse(textDecoder.decode(message.data)) as Reply };
    } catch (error) {
      if (error instanceof TimeoutError) return { kind: 'timeout' };
      if (error instanceof RequestError && error.isNoResponders()) return { kind: 'noResponders' };
      return { kind: 'error', message: error instanceof Error ? error.message : String(error) };
    }
  }

  async #attempt<Reply, T>(subject: string, timeoutMs: number, asked: string | undefined, send: (subject: string, timeoutMs: number) => Promise<Answer<Reply>>,
    outcome: (reply: Reply) => Attempt<T>): Promise<Attempt<T>> {
    const answer = await send(subject, timeoutMs);
    if (answer.kind !== 'reply') {
      // The member we addressed may be gone: ask the queue group (any member) next time.
      if (asked !== undefined && this.#leaderId === asked) this.#leaderId = undefined;
      if (answer.kind === 'timeout') return { done: false, problem: `timeout after ${timeoutMs} ms on ${subject}`, backoff: false, timedOut: true };
      if (answer.kind === 'noResponders') return { done: false, problem: `no responders on ${subject}`, backoff: true };
      return { done: false, problem: answer.message, backoff: true };
    }
    // An outcome that refuses for good (StoreRejectedError, StorageAlarmError) throws and ends
    // the call instead of being retried as if the request had failed.
    return outcome(answer.reply);
  }

  #noteLeader(leaderId: string | undefined): void {
    this.#leaderId = leaderId;
  }

  #proposeOutcome(reply: ProposeReply<CommandResult>): Attempt<CommandResult> {
    switch (reply.type) {
      case 'ok':
        this.#noteLeader(reply.leaderId);
        return { done: true, value: reply.result };
      case 'notLeader':
        this.#noteLeader(reply.leaderId);
        return { done: false, problem: `not leader (leader ${reply.leaderId ?? 'unknown'})`, backoff: reply.leaderId === undefined };
      case 'dropped':
        if (reply.reason === 'tooLarge') throw new StoreRejectedError(reply.reason);
        this.#noteLeader(undefined);
        return { done: false, problem: `dropped: ${reply.reason}`, backoff: true };
      case 'overloaded':
        return { done: false, problem: 'member overloaded', backoff: true };
      case 'failed':
        this.#noteLeader(undefined);
        return { done: false, problem: `member failed: ${reply.message}`, backoff: true };
      case 'refused':
        // The leader's space alarm: not proposed; the API tier answers "database space exceeded".
        throw new StorageAlarmError(reply.message);
    }
  }

  #readIndexOutcome(reply: ReadIndexReply): Attempt<number> {
    switch (reply.type) {
      case 'ok':
        this.#noteLeader(reply.leaderId);
        return { done: true, value: reply.index };
      case 'notLeader':
        this.#noteLeader(reply.leaderId);
        return { done: false, problem: `not leader (leader ${reply.leaderId ?? 'unknown'})`, backoff: reply.leaderId === undefined };
      case 'overloaded':
        return { done: false, problem: 'member overloaded', backoff: true };
      case 'failed':
        this.#noteLeader(undefined);
        return { done: false, problem: `member failed: ${reply.message}`, backoff: true };
    }
  }

  #acquireSession(): Promise<Session> {
    if (this.#closed) return Promise.reject(new StoreClientClosedError());
    const idle = this.#idleSessions.pop();
    if (idle !== undefined) return Promise.resolve(idle);
    if (this.#sessionsOpen < clientSessionsMax) {
      this.#sessionsOpen += 1;
      return Promise.resolve({ id: randomUUID(), sequence: 0 });
    }
    if (this.#sessionWaiters.length >= sessionWaitersMax) return Promise.reject(new StoreClientOverloadedError());
    return new Promise((resolve, reject) => this.#sessionWaiters.push({ resolve, reject }));
  }

  /** Returns a session to the pool; one whose last command's fate is unknown is retired. */
  #releaseSession(session: Session, healthy: boolean): void {
    const next = healthy ? session : { id: randomUUID(), sequence: 0 };
    const waiter = this.#sessionWaiters.shift();
    if (waiter !== undefined) waiter.resolve(next);
    else this.#idleSessions.push(next);
  }
}
