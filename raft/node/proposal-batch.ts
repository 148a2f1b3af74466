// Owns: the wire format of a proposal batch between a store client (deploy/store-client.ts) and
// the proposal service (proposal-service.ts): many proposals in one request message, each one's
// outcome in one reply message, and the bounds of a batch. Decoding happens once per message.
//
// Request, binary, version 1 (big-endian):
//   u8   format version (proposalBatchVersion)
//   u32  item count N, 1 ≤ N ≤ proposalBatchItemsMax
//   N ×  (u32 length L, then L bytes: one proposal's opaque entry bytes)
// The whole message is at most proposalBatchBytesMax bytes unless N = 1: a batch of one is
// bounded only by the leader's entry limit (answered `dropped: tooLarge`), as a single proposal
// always was. Nothing may follow the last item.
//
// Reply, JSON, one message:
//   { "version": 1, "items": [ProposeReply, …] }   each item's outcome, in request order
//   { "version": 1, "all": ProposeReply }          one outcome for every item (notLeader from a
//                                                   member that does not forward, overloaded,
//                                                   failed for a malformed or oversized batch)
//
// Must not: interpret the proposals (their sessions make retries apply at most once; that is the
// state machine's business) or the results beyond their JSON.
import type { DropReason } from './errors.ts';

export const proposalBatchVersion = 1;
/** Proposals per batch: the store client's sessions (one proposal in flight per session). */
export const proposalBatchItemsMax = 256;
/**
 * Bytes per batch message (framing included): NATS's default max_payload, and an eighth of
 * one append batch (proposals.ts), so a batch always fits one append.
 */
export const proposalBatchBytesMax = 1024 * 1024;
/** Header bytes (version + count) and per-item framing bytes (length). */
export const proposalBatchHeaderBytes = 5;
export const proposalBatchItemHeaderBytes = 4;

export type ProposeReply<Result> =
  | { readonly type: 'ok'; readonly index: number; readonly result: Result; readonly leaderId: string }
  | { readonly type: 'notLeader'; readonly leaderId: string | undefined }
  /** Not (or not certainly) committed; retry with the same session and sequence. */
  | { readonly type: 'dropped'; readonly reason: DropReason }
  | { readonly type: 'overloaded' }
  /** The member failed (storage or apply) or the request was malformed; another member may do. */
  | { readonly type: 'failed'; readonly message: string }
  /** The owner's admission refused it (a space alarm): not proposed; retrying elsewhere would not help. */
  | { readonly type: 'refused'; readonly message: string };

export type ProposeBatchReply<Result> =
  | { readonly version: typeof proposalBatchVersion; readonly items: readonly ProposeReply<Result>[] }
  | { readonly version: typeof proposalBatchVersion; readonly all: ProposeReply<Result> };

/** The message size of a batch of proposals of these sizes. */
export function proposalBatchBytes(itemBytes: readonly number[]): number {
  let total = proposalBatchHeaderBytes;
  for (const bytes of itemBytes) total += proposalBatchItemHeaderBytes + bytes;
  return total;
}

export function encodeProposalBatch(items: readonly Uint8Array[]): Uint8Array {
  const message = new Uint8Array(proposalBatchBytes(items.map((item) => item.byteLength)));
  const view = new DataView(message.buffer);
  view.setUint8(0, proposalBatchVersion);
  view.setUint32(1, items.length);
  let offset = proposalBatchHeaderBytes;
  for (const item of items) {
    view.setUint32(offset, item.byteLength);
    message.set(item, offset + proposalBatchItemHeaderBytes);
    offset += proposalBatchItemHeaderBytes + item.byteLength;
  }
  return message;
}

export type DecodedProposalBatch =
  | { readonly ok: true; readonly items: Uint8Array[] }
  | { readonly ok: false; readonly problem: string };

/**
 * Decodes a batch request. Each item is copied out of `message` (a view into the NATS receive
 * buffer, which is reused), so the proposals own their bytes.
 */
export function decodeProposalBatch(message: Uint8Array): DecodedProposalBatch {
  if (message.byteLength < proposalBatchHeaderBytes) return { ok: false, problem: `proposal batch of ${message.byteLength} bytes has no header` };
  const view = new DataView(message.buffer, message.byteOffset, message.byteLength);
  const version = view.getUint8(0);
  if (version !== proposalBatchVersion) return { ok: false, problem: `proposal batch version ${version} is not ${proposalBatchVersion}` };
  const count = view.getUint32(1);
  if (count < 1 || count > proposalBatchItemsMax) return { ok: false, problem: `proposal batch of ${count} items (1 to ${proposalBatchItemsMax})` };
  if (count > 1 && message.byteLength > proposalBatchBytesMax) {
    return { ok: false, problem: `proposal batch of ${message.byteLength} bytes exceeds ${proposalBatchBytesMax}` };
  }
  const items: Uint8Array[] = [];
  let offset = proposalBatchHeaderBytes;
  for (let position = 0; position < count; position++) {
    if (offset + proposalBatchItemHeaderBytes > message.byteLength) return { ok: false, problem: `proposal batch truncated in item ${position}` };
    const length = view.getUint32(offset);
    const start = offset + proposalBatchItemHeaderBytes;
    if (start + length > message.byteLength) return { ok: false, problem: `proposal batch truncated in item ${position}` };
    items.push(message.slice(start, start + length));
    offset = start + length;
  }
  if (offset !== message.byteLength) return { ok: false, problem: `proposal batch has ${message.byteLength - offset} bytes after its last item` };
  return { ok: true, items };
}

/**
 * Each item's outcome from a decoded reply, or why the reply is unusable. `count` is the number
 * of items the request carried.
 */
export function proposeBatchReplyItems<Result>(reply: ProposeBatchReply<Result>, count: number): readonly ProposeReply<Result>[] | string {
  if (typeof reply !== 'object' || reply === null || reply.version !== proposalBatchVersion) return 'proposal batch reply of an unknown version';
  if ('all' in reply) return new Array<ProposeReply<Result>>(count).fill(reply.all);
  if (!Array.isArray(reply.items) || reply.items.length !== count) return `proposal batch reply without ${count} items`;
  return reply.items;
}
