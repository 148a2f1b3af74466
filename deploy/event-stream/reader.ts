// Owns: reading the change-event stream for the API tier (EventStreamReader): following it
// from a revision with an ordered consumer and handing contiguous batches to the caller, or
// telling it (onGap) that it must re-sync from a full list; and the stream's tail for
// readiness and lag.
//
// follow(R): finds the first message with `through` > R by a binary search over stream
// sequences (a few direct message reads, instead of replaying up to 5 minutes of stream), and
// starts an ordered consumer there. The first batch handed over starts at R exactly (events
// at or below R are filtered out of the message that straddles R); after that each batch's
// `from` is the previous batch's `through`. A message wholly at or below what was delivered
// (a republished overlap after the stream was recreated) is skipped; a message that starts
// after it is a gap: onGap, and the follow stops. So are a reset message, a message that does
// not decode, and the stream vanishing (nats-server lost its store): the caller re-lists and
// follows again from the list's revision. A stream recreated under a running follow (nats-server
// restarted without its store, and a publisher created it again) is noticed by its creation
// time, checked every recreationCheckMs: the ordered consumer would otherwise wait for the old
// sequence numbers in the new stream. The same check finds a stream whose last sequence is
// below what the follow had delivered when the check asked, two checks in a row (a memory
// stream whose servers all restarted: same stream, its sequence started again): a gap too.
// The same check restarts a consumer that delivers nothing for two checks while the stream has
// newer messages (one lost with its nats-server). nats-server 2.9 silently starts an ordered
// consumer at first_seq when the asked sequence expired; the `from` check catches that too. The
// same check tells followCaughtUp() whether the follow had delivered the stream's last message, so
// the lag gauge needs no stream request of its own while the follow keeps up.
// Must not: buffer without bound (the ordered consumer's pull window bounds what is in
// flight; onBatch runs synchronously per message).
import { DeliverPolicy, JetStreamApiCodes, JetStreamApiError, jetstream, jetstreamManager } from '@nats-io/jetstream';
import type { ConsumerMessages, JetStreamClient, JetStreamManager } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { decodeBatch, eventStreamName } from './format.ts';
import type { StreamBatch } from './format.ts';

export type ReaderLog = (message: string, fields?: Record<string, unknown>) => void;

export interface EventStreamReaderOptions {
  readonly connection: NatsConnection;
  readonly cluster: string;
  readonly group: string;
  readonly log?: ReaderLog;
}

export interface FollowHandle {
  /** Stops delivering (no callback runs after it resolves). */
  stop(): Promise<void>;
}

/** While the stream does not exist yet (no leader has published), follow() retries this often. */
export const streamWaitMs = 200;
/**
 * Messages one pull asks for: bounds what a follow buffers (a message is at most ~512 KiB, so
 * 64 MiB at worst, a few KiB typically).
 */
export const pullMessagesMax = 64;
/**
 * A pull's expiry and the server's idle heartbeat: two missed heartbeats make the ordered
 * consumer recreate itself, so a consumer lost with its nats-server (ordered consumers are R1)
 * is replaced within about 2 s instead of the client's default 30 s.
 */
export const pullExpiresMs = 5_000;
export const idleHeartbeatMs = 1_000;
/** How often a follow checks that the stream it reads is still the same one (its creation time). */
export const recreationCheckMs = 2_000;
const requestTimeoutMs = 5_000;

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function isStreamNotFound(error: unknown): boolean {
  return error instanceof JetStreamApiError && error.code === JetStreamApiCodes.StreamNotFound;
}

export class EventStreamReader {
  readonly stream: string;
  readonly #jsm: JetStreamManager;
  readonly #js: JetStreamClient;
  readonly #log: ReaderLog;
  /** What the latest check of the running follow saw: the stream's last sequence, and the last one delivered. */
  #followCheck: { readonly streamLastSeq: number; readonly deliveredSeq: number } | undefined;

  private constructor(options: EventStreamReaderOptions, jsm: JetStreamManager, js: JetStreamClient) {
    this.stream = eventStreamName(options.cluster, options.group);
    this.#jsm = jsm;
    this.#js = js;
    this.#log = options.log ?? (() => {});
  }

  /**
   * Does not wait for JetStream (no account check): while it is unavailable (no nats-server, a
   * JetStream leader election) follow() retries and lastThrough() rejects.
   */
  static async open(options: EventStreamReaderOptions): Promise<EventStreamReader> {
    const jsm = await jetstreamManager(options.connection, { timeout: requestTimeoutMs, checkAPI: false });
    const js = jetstream(options.connection, { timeout: requestTimeoutMs });
    return new EventStreamReader(options, jsm, js);
  }

  /**
   * Whether a follow runs and, at its latest check of the stream (every recreationCheckMs), had
   * delivered the stream's last message: its caller is then as far as the stream's tail was
   * then (lag 0) without asking the stream again.
   */
  followCaughtUp(): boolean {
    const check = this.#followCheck;
    return check !== undefined && check.deliveredSeq >= check.streamLastSeq;
  }

  /** `through` of the stream's last message (0 when the stream is empty or does not exist). */
  async lastThrough(): Promise<number> {
    let state;
    try {
      state = (await this.#jsm.streams.info(this.stream)).state;
    } catch (error) {
      if (isStreamNotFound(error)) return 0;
      throw error;
    }
    if (state.messages === 0) return 0;
    for (let seq = state.last_seq; seq >= state.first_seq && seq > 0; seq--) {
      const message = await this.#jsm.streams.getMessage(this.stream, { seq });
      if (message !== null) return decodeBatch(message.data).through;
    }
    return 0;
  }

  /**
   * Delivers every change after `afterRevision` in contiguous batches (the first has from =
   * afterRevision), in order, until stop() or onGap. onGap is called at most once, and then
   * the follow has stopped.
   */
  follow(afterRevision: number, onBatch: (batch: StreamBatch) => void, onGap: (reason: string) => void): FollowHandle {
    if (!Number.isSafeInteger(afterRevision) || afterRevision < 0) throw new TypeError('afterRevision must be a non-negative integer');
    let stopped = false;
    let messages: ConsumerMessages | undefined;
    let wake: (() => void) | undefined;
    let checkTimer: ReturnType<typeof setInterval> | undefined;
    const gap = (reason: string): void => {
      if (stopped) return;
      stopped = true;
      clearInterval(checkTimer);
      this.#followCheck = undefined;
      this.#log('event stream follow ends with a gap', { afterRevision, reason });
      void messages?.close().catch(() => undefined);
      onGap(reason);
    };
    const pause = (): Promise<void> => new Promise<void>((resolve) => {
      wake = resolve;
      setTimeout(resolve, streamWaitMs);
    });
    const run = async (): Promise<void> => {
      let last = afterRevision;
      let created: string | undefined;
      while (!stopped) {
        let startSeq: number;
        let current: ConsumerMessages;
        try {
          const info = await this.#jsm.streams.info(this.stream);
          if (created !== undefined && info.created !== created) {
            gap(`the event stream was recreated (created ${info.created}, was ${created})`);
            return;
          }
          created = info.created;
          startSeq = await this.#startSequence(last);
          const consumer = await this.#js.consumers.get(this.stream, { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: startSeq });
          if (stopped) return;
          current = await consumer.consume({ max_messages: pullMessagesMax, expires: pullExpiresMs, idle_heartbeat: idleHeartbeatMs });
        } catch (error) {
          if (!isStreamNotFound(error)) this.#log('event stream not readable yet; retrying', { error: errorMessage(error) });
          await pause();
          continue;
        }
        messages = current;
        if (stopped) {
          await current.close().catch(() => undefined);
          return;
        }
        // Watchdog: the stream was recreated (gap), or it has messages past the last one
        // delivered and nothing arrived for two checks (the consumer is stuck, e.g. lost with
        // its nats-server while JetStream elected a new stream leader): resume from `last`.
        let lastSeq = startSeq - 1;
        let deliveredSinceCheck = 0;
        let idleChecks = 0;
        let restart = false;
        const streamCreated = created;
        let behindChecks = 0;
        checkTimer = setInterval(() => {
          // What had been delivered when the request left: the answer describes a later stream.
          const deliveredAtRequest = lastSeq;
          this.#jsm.streams.info(this.stream).then((info) => {
            if (info.created !== streamCreated) {
              gap(`the event stream was recreated (created ${info.created}, was ${streamCreated})`);
              return;
            }
            // Its sequence started again (a memory stream whose servers all restarted) when two
            // checks in a row find it behind: one may come from a new stream leader that has
            // not yet applied what the old one delivered.
            behindChecks = info.state.last_seq < deliveredAtRequest ? behindChecks + 1 : 0;
            if (behindChecks >= 2) {
              gap(`the event stream lost its messages (its last sequence is ${info.state.last_seq}, this follow had read ${deliveredAtRequest})`);
              return;
            }
            if (!stopped && !restart) this.#followCheck = { streamLastSeq: info.state.last_seq, deliveredSeq: lastSeq };
            idleChecks = info.state.last_seq > lastSeq && deliveredSinceCheck === 0 ? idleChecks + 1 : 0;
            deliveredSinceCheck = 0;
            if (idleChecks >= 2 && !stopped && !restart) {
              restart = true;
              this.#log('event stream consumer stalled; resuming with a new one', { after: last, lastSeq, streamLastSeq: info.state.last_seq });
              void current.close().catch(() => undefined);
            }
          }, (error: unknown) => {
            // No answer (a JetStream leader election): the two checks in a row start over.
            behindChecks = 0;
            if (isStreamNotFound(error)) gap('the event stream no longer exists (deleted, or nats-server lost its store)');
          });
        }, recreationCheckMs);
        void (async () => {
          for await (const status of current.status()) {
            if (status.type === 'stream_not_found') gap('the event stream no longer exists (deleted, or nats-server lost its store)');
          }
        })().catch(() => undefined);
        for await (const message of current) {
          if (stopped || restart) break;
          lastSeq = message.seq;
          deliveredSinceCheck += 1;
          let batch: StreamBatch;
          try {
            batch = decodeBatch(message.data);
          } catch (error) {
            gap(`message ${message.seq}: ${errorMessage(error)}`);
            break;
          }
          if (batch.through <= last) continue;
          if (batch.reset === true) {
            gap(`the publisher reset the stream at (${batch.from}, ${batch.through}]: changes after ${last} are no longer known`);
            break;
          }
          if (batch.from > last) {
            gap(last === afterRevision && batch.from > afterRevision
              ? `the stream no longer reaches back to revision ${afterRevision} (its oldest message starts at ${batch.from})`
              : `gap in the stream: message ${message.seq} starts at ${batch.from}, the previous one ended at ${last}`);
            break;
          }
          const events = batch.from < last ? batch.events.filter((event) => event.revision > last) : batch.events;
          const delivered: StreamBatch = { from: last, through: batch.through, events };
          last = batch.through;
          try {
            onBatch(delivered);
          } catch (error) {
            gap(`onBatch threw: ${errorMessage(error)}`);
            break;
          }
        }
        clearInterval(checkTimer);
        if (stopped) return;
        if (restart) {
          await current.close().catch(() => undefined);
          continue;
        }
        gap('the event stream consumer ended');
        return;
      }
    };
    const done = run().finally(() => clearInterval(checkTimer)).catch((error: unknown) => gap(`event stream consumer failed: ${errorMessage(error)}`));
    return {
      stop: async () => {
        stopped = true;
        clearInterval(checkTimer);
        this.#followCheck = undefined;
        wake?.();
        await messages?.close().catch(() => undefined);
        await done;
      },
    };
  }

  /**
   * The stream sequence of the first message with `through` > afterRevision (last_seq + 1 when
   * none), by binary search; where a probe hits a deleted message, first_seq (the consumer
   * then skips what is already known).
   */
  async #startSequence(afterRevision: number): Promise<number> {
    const { state } = await this.#jsm.streams.info(this.stream);
    if (state.messages === 0) return state.last_seq + 1;
    let low = Math.max(1, state.first_seq);
    let high = state.last_seq + 1;
    while (low < high) {
      const mid = Math.floor((low + high) / 2);
      const message = await this.#jsm.streams.getMessage(this.stream, { seq: mid });
      if (message === null) return Math.max(1, state.first_seq);
      if (decodeBatch(message.data).through <= afterRevision) low = mid + 1;
      else high = mid;
    }
    return low;
  }
}
