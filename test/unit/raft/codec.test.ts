// raft/transport/codec: every member of the Message union round-trips (with and without its
// optional fields), batches keep order, entry bytes are copied out of the receive buffer, and
// garbage is a CodecError. The fixtures are keyed by Message['type'], so a new union member
// without a fixture here fails to type-check.
import { describe, expect, it } from 'vitest';
import type { Message, MessageType } from '../../../raft/core/index.ts';
import { CodecError, codecVersion, decodeBatch, encodeBatch } from '../../../raft/transport/index.ts';

const bytes = (...values: number[]): Uint8Array => new Uint8Array(values);
const base = { from: 'a', to: 'b', term: 7 };
const configuration = { voters: ['a', 'b', 'c'], learners: ['d'] };

/** The smallest valid message of each type (optional fields absent). */
const minimal: { readonly [Type in MessageType]: Extract<Message, { type: Type }> } = {
  requestVote: { type: 'requestVote', ...base, lastLogIndex: 0, lastLogTerm: 0 },
  voteResponse: { type: 'voteResponse', ...base, granted: false },
  appendEntries: { type: 'appendEntries', ...base, prevLogIndex: 0, prevLogTerm: 0, entries: [], commit: 0, round: 0 },
  appendResponse: { type: 'appendResponse', ...base, success: true, matchIndex: 0, round: 0 },
  installSnapshot: {
    type: 'installSnapshot', ...base, snapshot: { index: 0, term: 0, configuration: { voters: [], learners: [] } },
    offset: 0, data: bytes(), done: false,
  },
  snapshotResponse: { type: 'snapshotResponse', ...base, snapshotIndex: 0, nextOffset: 0, installed: false },
  timeoutNow: { type: 'timeoutNow', ...base },
};

/** Each type with every optional field set and large values. */
const full: { readonly [Type in MessageType]: readonly Extract<Message, { type: Type }>[] } = {
  requestVote: [
    { type: 'requestVote', ...base, lastLogIndex: 2 ** 40, lastLogTerm: 9, preVote: true, transfer: true },
    { type: 'requestVote', ...base, lastLogIndex: 3, lastLogTerm: 2, preVote: false, transfer: false },
  ],
  voteResponse: [
    { type: 'voteResponse', ...base, granted: true, preVote: true },
    { type: 'voteResponse', ...base, granted: true, preVote: false },
  ],
  appendEntries: [{
    type: 'appendEntries', ...base, prevLogIndex: 41, prevLogTerm: 6, commit: 40, round: 12345,
    entries: [
      { index: 42, term: 7, data: bytes() },
      { index: 43, term: 7, data: bytes(1, 2, 3), type: 'normal' },
      { index: 44, term: 7, data: new TextEncoder().encode('{"voters":["a"]}'), type: 'configuration' },
      { index: Number.MAX_SAFE_INTEGER, term: 7, data: new Uint8Array(70_000).fill(0xab) },
    ],
  }],
  appendResponse: [
    { type: 'appendResponse', ...base, success: true, matchIndex: 99, round: 3 },
    { type: 'appendResponse', ...base, success: false, rejectedIndex: 50, hintIndex: 20, round: 4 },
    { type: 'appendResponse', ...base, success: false, rejectedIndex: 50, hintIndex: 20, conflictTerm: 3, conflictIndex: 15, round: 4 },
    { type: 'appendResponse', ...base, success: false, rejectedIndex: 1, hintIndex: 0, conflictTerm: 0, conflictIndex: 0, round: 0 },
  ],
  installSnapshot: [{
    type: 'installSnapshot', ...base, snapshot: { index: 1000, term: 6, configuration }, offset: 65_536,
    data: new Uint8Array(1024).map((_, position) => position % 251), done: true,
  }],
  snapshotResponse: [{ type: 'snapshotResponse', ...base, snapshotIndex: 1000, nextOffset: 131_072, installed: true }],
  timeoutNow: [{ type: 'timeoutNow', from: 'leader-0', to: 'member_1', term: 2 ** 31 }],
};

const allMessages: Message[] = [...Object.values(minimal), ...Object.values(full).flat()];

describe('raft codec - round trip', () => {
  it.each(Object.keys(minimal))('%s (optional fields absent) decodes to the same message', (type) => {
    const message = minimal[type as MessageType];
    const decoded = decodeBatch(encodeBatch([message]));
    expect(decoded).toStrictEqual([message]);
  });

  it.each(Object.keys(full))('%s (optional fields set) decodes to the same message', (type) => {
    const messages = full[type as MessageType];
    for (const message of messages) expect(decodeBatch(encodeBatch([message]))).toStrictEqual([message]);
  });

  it('keeps a batch of every type in order, with the version byte first', () => {
    const encoded = encodeBatch(allMessages);
    expect(encoded[0]).toBe(codecVersion);
    expect(decodeBatch(encoded)).toStrictEqual(allMessages);
  });

  it('copies entry and snapshot bytes out of the receive buffer', () => {
    const message = full.appendEntries[0];
    const snapshot = full.installSnapshot[0];
    if (message === undefined || snapshot === undefined) throw new Error('fixtures present');
    const receiveBuffer = encodeBatch([message, snapshot]);
    const [decodedAppend, decodedSnapshot] = decodeBatch(receiveBuffer);
    receiveBuffer.fill(0);
    expect(decodedAppend).toStrictEqual(message);
    expect(decodedSnapshot).toStrictEqual(snapshot);
    if (decodedAppend?.type !== 'appendEntries') throw new Error('append decoded');
    expect(decodedAppend.entries[1]?.data.buffer).not.toBe(receiveBuffer.buffer);
  });

  it('is compact: a heartbeat fits in a few dozen bytes', () => {
    const heartbeat: Message = { type: 'appendEntries', from: 'store-1', to: 'store-2', term: 12, prevLogIndex: 100_000, prevLogTerm: 12, entries: [], commit: 100_000, round: 5000 };
    expect(encodeBatch([heartbeat]).byteLength).toBeLessThan(40);
  });
});

describe('raft codec - garbage is a CodecError', () => {
  const cases: [string, Uint8Array][] = [
    ['an empty payload', bytes()],
    ['a wrong version byte', Uint8Array.of(99, ...encodeBatch([minimal.timeoutNow]).subarray(1))],
    ['a version byte alone (no message)', bytes(codecVersion)],
    ['random bytes after the version', bytes(codecVersion, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x01)],
    ['a truncated batch', encodeBatch([full.appendEntries[0] as Message]).subarray(0, 500)],
    ['a message without a body', bytes(codecVersion, 0x0a, 0x06, 0x0a, 0x01, 0x61, 0x12, 0x01, 0x62)],
    ['a message without a sender', bytes(codecVersion, 0x0a, 0x05, 0x12, 0x01, 0x62, 0x5a, 0x00)],
    ['text', new TextEncoder().encode('hello, raft')],
  ];
  it.each(cases)('%s', (_name, payload) => {
    expect(() => decodeBatch(payload)).toThrow(CodecError);
  });

  it('a fuzzed payload either decodes to valid messages or throws CodecError', () => {
    const valid = encodeBatch(allMessages);
    let state = 12345;
    const next = (): number => {
      state = (state * 1103515245 + 12345) % 2 ** 31;
      return state;
    };
    for (let round = 0; round < 500; round++) {
      const mutated = new Uint8Array(valid);
      for (let flips = 0; flips < 3; flips++) mutated[1 + (next() % (mutated.length - 1))] = next() % 256;
      try {
        for (const message of decodeBatch(mutated)) {
          expect(Number.isSafeInteger(message.term)).toBe(true);
          expect(message.from.length).toBeGreaterThan(0);
        }
      } catch (error) {
        expect(error).toBeInstanceOf(CodecError);
      }
    }
  });
});
