// Owns: Raft messages over NATS core pub/sub, and the NATS connection settings every kstore
// member and client uses (unlimited reconnects).
//
// Subjects: member M of group G in cluster C receives on `kstore.raft.C.G.M` (one plain
// subscription per member, no queue group). send() never publishes: it appends to a bounded
// queue per target and schedules one flush as a microtask (after the driver's current
// synchronous step, before any I/O callback), which joins every message queued for a target into
// as few NATS messages as the server's max_payload allows (one, normally). A microtask rather
// than setImmediate: it halved commit latency at one proposer (2.5 ms vs 4.8 ms p50) while still
// batching everything one Ready sends. publish() is synchronous in nats.js (it fills the
// client's write buffer, flushed to the socket in a microtask), so nothing in the hot path awaits.
//
// Loss: Raft tolerates loss, reordering and duplication (Raft paper §5.3, 5.5), so every
// overflow here drops instead of blocking: a full peer queue drops its oldest non-vote message
// (votes and TimeoutNow are tiny and decide liveness, appends and heartbeats are re-sent by the
// leader). An append larger than the server's max_payload is split into valid smaller appends
// (framesWithin); only a single entry larger than max_payload is dropped, counted and logged
// (nats-server's max_payload must exceed the largest entry). While the
// connection is down nothing is published (nats.js would buffer it without a bound); the peer
// queues keep their bounded, newest content, and are flushed once the client has reconnected
// (nats.js reconnects forever with natsConnectionOptions and re-creates subscriptions itself).
// The member's Raft state is untouched by any of this: it simply hears nothing for a while.
//
// Must not: interpret messages beyond their `type` (for the overflow policy), `to`, and the
// entries of an append it must split; or own the connection's lifetime (the caller opens and
// closes it).
import { connect } from '@nats-io/transport-node';
import type { ConnectionOptions, Msg, NatsConnection, Subscription } from '@nats-io/transport-node';
import type { Message, NodeId } from '../core/index.ts';
import { assert } from '../stdx/index.ts';
import { decodeBatch, encodeMessageFrame, joinFrames } from './codec.ts';
import { InvalidNameError, subjectTokenPattern } from './errors.ts';
import type { MessageHandler, Transport } from './transport.ts';

/**
 * Messages queued for one peer. The driver sends at most inflightAppendsMax (64) appends plus a
 * heartbeat and a vote or two per peer in one iteration, and a flush normally empties the queue
 * within one event-loop turn; 1024 absorbs ~15 iterations of backlog while NATS is slow or
 * reconnecting. Older appends than that are stale anyway: the leader re-sends from the
 * follower's progress once it hears from it again.
 */
export const peerQueueMessagesMax = 1024;

/**
 * Approximate bytes (entry and snapshot data) queued for one peer: one full inflight window
 * (64 appends × 256 entries × ~4 KiB objects ≈ 64 MiB). Bounds what a disconnected member pins
 * in memory per peer; overflow uses the same drop-oldest-non-vote policy.
 */
export const peerQueueBytesMax = 64 * 1024 * 1024;

/** Used when the server did not announce max_payload (nats-server's default is 1 MiB). */
export const payloadBytesDefault = 1024 * 1024;

/** Logged decode failures per transport; later ones are only counted (a bad peer must not flood the log). */
export const decodeErrorsLoggedMax = 10;

/** Fixed per-message overhead assumed by the byte bound (ids, terms, framing). */
const messageOverheadBytes = 64;
const entryOverheadBytes = 24;

export type TransportLog = (message: string, fields?: Record<string, unknown>) => void;

export interface NatsTransportOptions {
  readonly connection: NatsConnection;
  /** Cluster name: one NATS subject token. */
  readonly cluster: string;
  /** Raft group name within the cluster: one NATS subject token. */
  readonly group: string;
  /** This member's id: one NATS subject token. */
  readonly member: NodeId;
  readonly log?: TransportLog;
}

export interface NatsTransportStats {
  readonly sentMessages: number;
  readonly sentPayloads: number;
  readonly receivedMessages: number;
  /** Dropped by the peer-queue overflow policy. */
  readonly droppedOverflow: number;
  /** Dropped because one message alone exceeded the server's max_payload (and could not be split). */
  readonly droppedOversized: number;
  /** Extra appendEntries messages made by splitting one that exceeded max_payload. */
  readonly splitAppends: number;
  /** Dropped because publish failed (connection closed). */
  readonly droppedPublish: number;
  readonly decodeErrors: number;
  /** Received messages addressed to another member (a misconfigured peer). */
  readonly misaddressed: number;
  readonly connected: boolean;
}

/** Throws InvalidNameError unless `value` is one NATS subject token. */
export function checkSubjectToken(what: string, value: string): void {
  if (!subjectTokenPattern.test(value)) throw new InvalidNameError(what, value);
}

/** The subject member `member` of `group` in `cluster` receives Raft messages on. */
export function raftSubject(cluster: string, group: string, member: NodeId): string {
  checkSubjectToken('cluster', cluster);
  checkSubjectToken('group', group);
  checkSubjectToken('member', member);
  return `kstore.raft.${cluster}.${group}.${member}`;
}

/**
 * Connection options for every kstore NATS client: reconnect forever (a member must outlive
 * any NATS outage with its state intact), also when the first connect fails, and notice a dead
 * server within a few seconds instead of nats.js' default two minutes. No async traces: nats.js
 * otherwise builds an Error (a stack capture) for every request up front, in case it times
 * out — measured at ~3.5% of an API replica's CPU under a create load (bench:api --cpu-prof).
 * The servers are tried in the order given (nats.js shuffles them by default): the first one
 * reachable is used, the others on failover. Processes given the same list share one
 * nats-server, so a message between two of them is not routed through a second server: with
 * `kstore cluster up` on one machine (all eight processes on one of three nats-servers instead
 * of spread at random) that cut the CPU per write at 64 clients from 2.27–2.40 ms to
 * 1.88–1.97 ms in three alternated pairs of runs (the nats-servers' share from 0.58–0.66 to
 * 0.46–0.49 ms), and raised creates/s by a fifth.
 */
export function natsConnectionOptions(servers: readonly string[], name: string): ConnectionOptions {
  assert(servers.length > 0, 'at least one NATS server URL');
  return {
    servers: [...servers], name,
    maxReconnectAttempts: -1, waitOnFirstConnect: true,
    reconnectTimeWait: 250, reconnectJitter: 100,
    pingInterval: 2_000, maxPingOut: 2,
    noAsyncTraces: true,
    noRandomize: true,
  };
}

export function connectNats(servers: readonly string[], name: string): Promise<NatsConnection> {
  return connect(natsConnectionOptions(servers, name));
}

function isVote(message: Message): boolean {
  return message.type === 'requestVote' || message.type === 'voteResponse' || message.type === 'timeoutNow';
}

function approximateBytes(message: Message): number {
  if (message.type === 'appendEntries') {
    let total = messageOverheadBytes;
    for (const entry of message.entries) total += entry.data.byteLength + entryOverheadBytes;
    return total;
  }
  if (message.type === 'installSnapshot') return messageOverheadBytes + message.data.byteLength;
  return messageOverheadBytes;
}

export interface FittedFrames {
  readonly frames: readonly Uint8Array[];
  /** Appends made beyond the first by splitting. */
  readonly splits: number;
  /** A single entry (or a non-append message) exceeds the payload on its own: nothing to send. */
  readonly oversized: boolean;
}

/**
 * Encodes `message` as frames of at most `payloadMax` bytes each (with the version byte). An
 * appendEntries too large for one NATS message is split into consecutive appends, each with the
 * prevLogIndex/prevLogTerm of the entry before its first: every part is a valid append on its
 * own (Raft §5.3), acknowledged on its own, and the follower clamps the commit index to each
 * part's last entry. This keeps replication live whatever nats-server's max_payload (1 MiB by
 * default) and the core's entries per append (up to 256 entries of up to 4 MiB) are.
 */
export function framesWithin(message: Message, payloadMax: number): FittedFrames {
  const frame = encodeMessageFrame(message);
  if (1 + frame.byteLength <= payloadMax) return { frames: [frame], splits: 0, oversized: false };
  if (message.type !== 'appendEntries' || message.entries.length < 2) return { frames: [], splits: 0, oversized: true };
  const middle = Math.floor(message.entries.length / 2);
  const boundary = message.entries[middle - 1];
  assert(boundary !== undefined, 'a split append has entries before its middle');
  const head = framesWithin({ ...message, entries: message.entries.slice(0, middle) }, payloadMax);
  const tail = framesWithin({
    ...message, prevLogIndex: boundary.index, prevLogTerm: boundary.term, entries: message.entries.slice(middle),
  }, payloadMax);
  return { frames: [...head.frames, ...tail.frames], splits: head.splits + tail.splits + 1, oversized: head.oversized || tail.oversized };
}

/**
 * The bounded outgoing queue of one peer, with the drop-oldest-non-vote overflow policy.
 * Exported for unit tests only (not part of raft/transport's index).
 */
export class PeerQueue {
  readonly subject: string;
  messages: Message[] = [];
  bytes = 0;

  constructor(subject: string) {
    this.subject = subject;
  }

  /** Appends `message`; returns how many queued messages were dropped to make room. */
  push(message: Message): number {
    this.messages.push(message);
    this.bytes += approximateBytes(message);
    let dropped = 0;
    while (this.messages.length > peerQueueMessagesMax || (this.bytes > peerQueueBytesMax && this.messages.length > 1)) {
      const victim = this.messages.findIndex((queued) => !isVote(queued));
      const [removed] = this.messages.splice(victim === -1 ? 0 : victim, 1);
      assert(removed !== undefined, 'an over-full queue has a message to drop');
      this.bytes -= approximateBytes(removed);
      dropped += 1;
    }
    assert(this.messages.length <= peerQueueMessagesMax, 'peer queue stays bounded');
    return dropped;
  }

  take(): Message[] {
    const messages = this.messages;
    this.messages = [];
    this.bytes = 0;
    return messages;
  }
}

export class NatsTransport implements Transport {
  readonly subject: string;
  readonly #connection: NatsConnection;
  readonly #cluster: string;
  readonly #group: string;
  readonly #member: NodeId;
  readonly #log: TransportLog;
  readonly #peers = new Map<NodeId, PeerQueue>();
  #subscription: Subscription | undefined = undefined;
  #handler: MessageHandler | undefined = undefined;
  #flushScheduled = false;
  #connected: boolean;
  #closed = false;
  #stats = { sentMessages: 0, sentPayloads: 0, receivedMessages: 0, droppedOverflow: 0, droppedOversized: 0, splitAppends: 0, droppedPublish: 0, decodeErrors: 0, misaddressed: 0 };

  constructor(options: NatsTransportOptions) {
    this.subject = raftSubject(options.cluster, options.group, options.member);
    this.#connection = options.connection;
    this.#cluster = options.cluster;
    this.#group = options.group;
    this.#member = options.member;
    this.#log = options.log ?? (() => {});
    this.#connected = !options.connection.isClosed();
    void this.#watchStatus();
  }

  send(messages: readonly Message[]): void {
    if (this.#closed) return;
    for (const message of messages) {
      assert(message.from === this.#member, `member ${this.#member} sent a message as ${message.from}`);
      this.#stats.droppedOverflow += this.#queueOf(message.to).push(message);
    }
    this.#scheduleFlush();
  }

  onMessage(handler: MessageHandler): () => void {
    assert(this.#handler === undefined, `member ${this.#member} already has a message handler`);
    assert(!this.#closed, 'transport is closed');
    this.#handler = handler;
    this.#subscription = this.#connection.subscribe(this.subject, {
      callback: (error, message) => {
        if (error !== null) {
          this.#log('raft transport subscription error', { error: error.message });
          return;
        }
        this.#receive(message);
      },
    });
    return () => {
      if (this.#handler !== handler) return;
      this.#handler = undefined;
      this.#subscription?.unsubscribe();
      this.#subscription = undefined;
    };
  }

  stats(): NatsTransportStats {
    return { ...this.#stats, connected: this.#connected };
  }

  /** Stops sending and receiving; drops what is queued. Leaves the connection open (the caller owns it). */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#handler = undefined;
    this.#subscription?.unsubscribe();
    this.#subscription = undefined;
    this.#peers.clear();
  }

  #queueOf(target: NodeId): PeerQueue {
    let queue = this.#peers.get(target);
    if (queue === undefined) {
      queue = new PeerQueue(raftSubject(this.#cluster, this.#group, target));
      this.#peers.set(target, queue);
    }
    return queue;
  }

  #scheduleFlush(): void {
    if (this.#flushScheduled || !this.#connected || this.#closed) return;
    this.#flushScheduled = true;
    queueMicrotask(() => {
      this.#flushScheduled = false;
      this.#flush();
    });
  }

  #flush(): void {
    if (!this.#connected || this.#closed) return;
    const payloadMax = this.#connection.info?.max_payload ?? payloadBytesDefault;
    for (const queue of this.#peers.values()) {
      if (queue.messages.length === 0) continue;
      this.#publishAll(queue.subject, queue.take(), payloadMax);
    }
  }

  /** Publishes `messages` to `subject` in as few payloads of at most `payloadMax` bytes as possible. */
  #publishAll(subject: string, messages: readonly Message[], payloadMax: number): void {
    let frames: Uint8Array[] = [];
    let bytes = 1;
    for (const message of messages) {
      const fitted = framesWithin(message, payloadMax);
      this.#stats.splitAppends += fitted.splits;
      if (fitted.oversized) {
        this.#stats.droppedOversized += 1;
        this.#log('raft entry larger than NATS max_payload dropped (raise max_payload in nats-server)', { type: message.type, to: message.to, payloadMax });
        continue;
      }
      for (const frame of fitted.frames) {
        if (bytes + frame.byteLength > payloadMax) {
          this.#publish(subject, frames);
          frames = [];
          bytes = 1;
        }
        frames.push(frame);
        bytes += frame.byteLength;
      }
    }
    if (frames.length > 0) this.#publish(subject, frames);
  }

  #publish(subject: string, frames: readonly Uint8Array[]): void {
    try {
      this.#connection.publish(subject, joinFrames(frames));
      this.#stats.sentMessages += frames.length;
      this.#stats.sentPayloads += 1;
    } catch (error) {
      this.#stats.droppedPublish += frames.length;
      this.#log('raft transport publish failed', { subject, error: error instanceof Error ? error.message : String(error) });
    }
  }

  #receive(natsMessage: Msg): void {
    const handler = this.#handler;
    if (handler === undefined) return;
    let messages: Message[];
    try {
      messages = decodeBatch(natsMessage.data);
    } catch (error) {
      this.#stats.decodeErrors += 1;
      if (this.#stats.decodeErrors <= decodeErrorsLoggedMax) {
        this.#log('raft transport dropped an undecodable payload', { error: error instanceof Error ? error.message : String(error) });
      }
      return;
    }
    for (const message of messages) {
      if (message.to !== this.#member) {
        this.#stats.misaddressed += 1;
        continue;
      }
      this.#stats.receivedMessages += 1;
      handler(message);
    }
  }

  /** Tracks the connection: publishing pauses while disconnected and resumes on reconnect. */
  async #watchStatus(): Promise<void> {
    for await (const status of this.#connection.status()) {
      if (this.#closed) return;
      if (status.type === 'disconnect') {
        this.#connected = false;
        this.#log('raft transport disconnected from NATS', { server: status.server });
      } else if (status.type === 'reconnect') {
        this.#connected = true;
        this.#log('raft transport reconnected to NATS', { server: status.server });
        this.#scheduleFlush();
      } else if (status.type === 'close') {
        this.#connected = false;
        return;
      }
    }
  }
}
