// Owns: the wire format of Raft messages (STYLE rule 6: the only module that knows it).
// Message ⇄ bytes with protobufjs, the schema defined below in code (no codegen step).
//
// Frame: one version byte (codecVersion), then a protobuf `Batch` (repeated Message). A batch
// is what one NATS message carries; frames are built by concatenating individually encoded
// messages (a repeated field is the concatenation of its elements), so a sender can split a
// long queue into payload-sized frames while encoding every message only once.
//
// Decoding copies every byte field (entry data, snapshot chunks) out of the receive buffer:
// NATS hands us views into its socket buffer, which it reuses. Every decoded number is checked
// to be a safe non-negative integer, every required part to be present: anything else is a
// CodecError, never a malformed Message handed to the core.
//
// Must not: know about subjects, connections or queues (nats-transport.ts does).
import protobuf from 'protobufjs';
import type { Configuration, Entry, EntryType, Message, NodeId, SnapshotMeta } from '../core/index.ts';
import { assert, unreachable } from '../stdx/index.ts';
import { CodecError } from './errors.ts';

/** Bumped on any incompatible change of the schema below; receivers reject other versions. */
export const codecVersion = 1;

const schema = `
syntax = "proto3";
package kstore.raft.v1;

enum EntryType {
  ENTRY_TYPE_ABSENT = 0;
  ENTRY_TYPE_NORMAL = 1;
  ENTRY_TYPE_CONFIGURATION = 2;
}
message Entry { uint64 index = 1; uint64 term = 2; bytes data = 3; EntryType type = 4; }
message Configuration { repeated string voters = 1; repeated string learners = 2; }
message SnapshotMeta { uint64 index = 1; uint64 term = 2; Configuration configuration = 3; }

message RequestVote { uint64 last_log_index = 1; uint64 last_log_term = 2; optional bool pre_vote = 3; optional bool transfer = 4; }
message VoteResponse { bool granted = 1; optional bool pre_vote = 2; }
message AppendEntries { uint64 prev_log_index = 1; uint64 prev_log_term = 2; repeated Entry entries = 3; uint64 commit = 4; uint64 round = 5; }
message AppendAccepted { uint64 match_index = 1; uint64 round = 2; }
message AppendRejected {
  uint64 rejected_index = 1; uint64 hint_index = 2;
  optional uint64 conflict_term = 3; optional uint64 conflict_index = 4; uint64 round = 5;
}
message InstallSnapshot { SnapshotMeta snapshot = 1; uint64 offset = 2; bytes data = 3; bool done = 4; }
message SnapshotResponse { uint64 snapshot_index = 1; uint64 next_offset = 2; bool installed = 3; }
message TimeoutNow {}

message Message {
  string from = 1;
  string to = 2;
  uint64 term = 3;
  oneof body {
    RequestVote request_vote = 4;
    VoteResponse vote_response = 5;
    AppendEntries append_entries = 6;
    AppendAccepted append_accepted = 7;
    AppendRejected append_rejected = 8;
    InstallSnapshot install_snapshot = 9;
    SnapshotResponse snapshot_response = 10;
    TimeoutNow timeout_now = 11;
  }
}
message Batch { repeated Message messages = 1; }
`;

const root = protobuf.parse(schema).root;
const messageType = root.lookupType('kstore.raft.v1.Message');
const batchType = root.lookupType('kstore.raft.v1.Batch');

/** Protobuf tag of Batch.messages (field 1, length-delimited): used to frame pre-encoded messages. */
const batchMessagesTag = (1 << 3) | 2;

const entryTypeNumbers: Record<EntryType, number> = { normal: 1, configuration: 2 };

// ---------------------------------------------------------------------------------------------
// Encoding

type Plain = Record<string, unknown>;

function plainEntry(entry: Entry): Plain {
  const plain: Plain = { index: entry.index, term: entry.term, data: entry.data };
  if (entry.type !== undefined) plain.type = entryTypeNumbers[entry.type];
  return plain;
}

function plainSnapshotMeta(meta: SnapshotMeta): Plain {
  return {
    index: meta.index, term: meta.term,
    configuration: { voters: [...meta.configuration.voters], learners: [...meta.configuration.learners] },
  };
}

function optionalFields(fields: Readonly<Record<string, unknown>>): Plain {
  const plain: Plain = {};
  for (const [name, value] of Object.entries(fields)) if (value !== undefined) plain[name] = value;
  return plain;
}

/** The protobuf body of one message: the oneof member name and its plain fields. */
function plainBody(message: Message): [string, Plain] {
  switch (message.type) {
    case 'requestVote':
      return ['requestVote', {
        lastLogIndex: message.lastLogIndex, lastLogTerm: message.lastLogTerm,
        ...optionalFields({ preVote: message.preVote, transfer: message.transfer }),
      }];
    case 'voteResponse':
      return ['voteResponse', { granted: message.granted, ...optionalFields({ preVote: message.preVote }) }];
    case 'appendEntries':
      return ['appendEntries', {
        prevLogIndex: message.prevLogIndex, prevLogTerm: message.prevLogTerm,
        entries: message.entries.map(plainEntry), commit: message.commit, round: message.round,
      }];
    case 'appendResponse':
      if (message.success) return ['appendAccepted', { matchIndex: message.matchIndex, round: message.round }];
      return ['appendRejected', {
        rejectedIndex: message.rejectedIndex, hintIndex: message.hintIndex, round: message.round,
        ...optionalFields({ conflictTerm: message.conflictTerm, conflictIndex: message.conflictIndex }),
      }];
    case 'installSnapshot':
      return ['installSnapshot', {
        snapshot: plainSnapshotMeta(message.snapshot), offset: message.offset, data: message.data, done: message.done,
      }];
    case 'snapshotResponse':
      return ['snapshotResponse', {
        snapshotIndex: message.snapshotIndex, nextOffset: message.nextOffset, installed: message.installed,
      }];
    case 'timeoutNow':
      return ['timeoutNow', {}];
    default:
      return unreachable(message, 'unknown raft message type');
  }
}

/**
 * One message as a length-delimited Batch element (tag, length, body), ready to be
 * concatenated into a frame after the version byte.
 */
export function encodeMessageFrame(message: Message): Uint8Array {
  const [bodyName, body] = plainBody(message);
  const writer = protobuf.Writer.create();
  writer.uint32(batchMessagesTag).fork();
  messageType.encode({ from: message.from, to: message.to, term: message.term, [bodyName]: body }, writer);
  writer.ldelim();
  const frame = writer.finish();
  assert(frame.byteLength > 0, 'an encoded message frame is not empty');
  return frame;
}

/** Bytes of a frame holding `frames` (message frames from encodeMessageFrame). */
export function frameBytes(frames: readonly Uint8Array[]): number {
  let total = 1;
  for (const frame of frames) total += frame.byteLength;
  return total;
}

/** Joins message frames into one wire batch: the version byte, then the frames. */
export function joinFrames(frames: readonly Uint8Array[]): Uint8Array {
  assert(frames.length > 0, 'a batch holds at least one message');
  const out = new Uint8Array(frameBytes(frames));
  out[0] = codecVersion;
  let offset = 1;
  for (const frame of frames) {
    out.set(frame, offset);
    offset += frame.byteLength;
  }
  assert(offset === out.byteLength, 'joined frames fill the batch exactly');
  return out;
}

/** Encodes messages (to any mix of targets) as one wire batch. */
export function encodeBatch(messages: readonly Message[]): Uint8Array {
  return joinFrames(messages.map(encodeMessageFrame));
}

// ---------------------------------------------------------------------------------------------
// Decoding

/** Decodes one wire batch; throws CodecError on anything that is not a valid batch. */
export function decodeBatch(bytes: Uint8Array): Message[] {
  if (bytes.byteLength === 0) throw new CodecError('empty payload');
  if (bytes[0] !== codecVersion) throw new CodecError(`unsupported version ${String(bytes[0])} (expected ${codecVersion})`);
  let decoded: Plain;
  try {
    const batch = batchType.decode(bytes.subarray(1));
    decoded = batchType.toObject(batch, { longs: Number, defaults: false, arrays: true, oneofs: true }) as Plain;
  } catch (error) {
    throw new CodecError(`malformed batch: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  const messages = decoded.messages;
  if (!Array.isArray(messages) || messages.length === 0) throw new CodecError('a batch holds no message');
  return messages.map((message: unknown, position) => {
    try {
      return toMessage(asPlain(message, 'message'));
    } catch (error) {
      if (error instanceof CodecError) throw new CodecError(`message ${position}: ${error.message}`, { cause: error });
      throw error;
    }
  });
}

function asPlain(value: unknown, what: string): Plain {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new CodecError(`${what} is missing`);
  return value as Plain;
}

/** A uint64 field: absent means 0 (proto3); present must be a safe integer. */
function count(plain: Plain, field: string): number {
  const value = plain[field] ?? 0;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new CodecError(`${field} is not a safe non-negative integer: ${String(value)}`);
  }
  return value;
}

function optionalCount(plain: Plain, field: string): number | undefined {
  return plain[field] === undefined ? undefined : count(plain, field);
}

function flag(plain: Plain, field: string): boolean {
  const value = plain[field] ?? false;
  if (typeof value !== 'boolean') throw new CodecError(`${field} is not a boolean`);
  return value;
}

function optionalFlag(plain: Plain, field: string): boolean | undefined {
  return plain[field] === undefined ? undefined : flag(plain, field);
}

/** A bytes field, copied out of the receive buffer. */
function bytesCopy(plain: Plain, field: string): Uint8Array {
  const value = plain[field];
  if (value === undefined) return new Uint8Array(0);
  if (!(value instanceof Uint8Array)) throw new CodecError(`${field} is not bytes`);
  return new Uint8Array(value);
}

function nodeId(plain: Plain, field: string): NodeId {
  const value = plain[field];
  if (typeof value !== 'string' || value.length === 0) throw new CodecError(`${field} is not a member id`);
  return value;
}

function nodeIds(plain: Plain, field: string): NodeId[] {
  const value = plain[field] ?? [];
  if (!Array.isArray(value)) throw new CodecError(`${field} is not a list`);
  return value.map((item: unknown) => {
    if (typeof item !== 'string' || item.length === 0) throw new CodecError(`${field} holds a non-id`);
    return item;
  });
}

function toEntry(value: unknown): Entry {
  const plain = asPlain(value, 'entry');
  const entry = { index: count(plain, 'index'), term: count(plain, 'term'), data: bytesCopy(plain, 'data') };
  const typeNumber = plain.type ?? 0;
  if (typeNumber === 0) return entry;
  if (typeNumber === entryTypeNumbers.normal) return { ...entry, type: 'normal' };
  if (typeNumber === entryTypeNumbers.configuration) return { ...entry, type: 'configuration' };
  throw new CodecError(`unknown entry type ${String(typeNumber)}`);
}

function toSnapshotMeta(value: unknown): SnapshotMeta {
  const plain = asPlain(value, 'snapshot meta');
  const configurationPlain = asPlain(plain.configuration, 'snapshot configuration');
  const configuration: Configuration = { voters: nodeIds(configurationPlain, 'voters'), learners: nodeIds(configurationPlain, 'learners') };
  return { index: count(plain, 'index'), term: count(plain, 'term'), configuration };
}

function withOptional<T extends object>(base: T, optional: Readonly<Record<string, unknown>>): T {
  return { ...base, ...optionalFields(optional) };
}

function toMessage(plain: Plain): Message {
  const head = { from: nodeId(plain, 'from'), to: nodeId(plain, 'to'), term: count(plain, 'term') };
  const bodyName = plain.body;
  if (typeof bodyName !== 'string') throw new CodecError('message has no body');
  const body = asPlain(plain[bodyName], bodyName);
  switch (bodyName) {
    case 'requestVote':
      return withOptional({
        type: 'requestVote' as const, ...head, lastLogIndex: count(body, 'lastLogIndex'), lastLogTerm: count(body, 'lastLogTerm'),
      }, { preVote: optionalFlag(body, 'preVote'), transfer: optionalFlag(body, 'transfer') });
    case 'voteResponse':
      return withOptional({ type: 'voteResponse' as const, ...head, granted: flag(body, 'granted') }, { preVote: optionalFlag(body, 'preVote') });
    case 'appendEntries': {
      const entries = body.entries ?? [];
      if (!Array.isArray(entries)) throw new CodecError('entries is not a list');
      return {
        type: 'appendEntries', ...head, prevLogIndex: count(body, 'prevLogIndex'), prevLogTerm: count(body, 'prevLogTerm'),
        entries: entries.map(toEntry), commit: count(body, 'commit'), round: count(body, 'round'),
      };
    }
    case 'appendAccepted':
      return { type: 'appendResponse', ...head, success: true, matchIndex: count(body, 'matchIndex'), round: count(body, 'round') };
    case 'appendRejected':
      return withOptional({
        type: 'appendResponse' as const, ...head, success: false as const,
        rejectedIndex: count(body, 'rejectedIndex'), hintIndex: count(body, 'hintIndex'), round: count(body, 'round'),
      }, { conflictTerm: optionalCount(body, 'conflictTerm'), conflictIndex: optionalCount(body, 'conflictIndex') });
    case 'installSnapshot':
      return {
        type: 'installSnapshot', ...head, snapshot: toSnapshotMeta(body.snapshot), offset: count(body, 'offset'),
        data: bytesCopy(body, 'data'), done: flag(body, 'done'),
      };
    case 'snapshotResponse':
      return {
        type: 'snapshotResponse', ...head, snapshotIndex: count(body, 'snapshotIndex'), nextOffset: count(body, 'nextOffset'),
        installed: flag(body, 'installed'),
      };
    case 'timeoutNow':
      return { type: 'timeoutNow', ...head };
    default:
      throw new CodecError(`unknown message body ${bodyName}`);
  }
}
