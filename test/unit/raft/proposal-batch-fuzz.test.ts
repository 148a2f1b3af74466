// Property test of the proposal batch wire format (raft/node/proposal-batch.ts), the bytes a store
// member takes from any NATS client: whatever arrives, decoding never throws, a batch it accepts
// re-encodes to exactly the bytes received (one meaning per message), and it accepts no more
// items or bytes than its bounds.
import { describe, expect, it } from 'vitest';
import {
  decodeProposalBatch, encodeProposalBatch, proposalBatchBytesMax, proposalBatchItemsMax,
} from '../../../raft/node/proposal-batch.ts';
import { createRng } from '../../../raft/stdx/index.ts';
import type { Rng } from '../../../raft/stdx/index.ts';

function randomBytes(rng: Rng, length: number): Uint8Array {
  const bytes = new Uint8Array(length);
  for (let position = 0; position < length; position++) bytes[position] = rng.intBetween(0, 256);
  return bytes;
}

/** A valid batch, then (usually) damaged: a byte flipped, cut short, extended, or a length forged. */
function message(rng: Rng): Uint8Array {
  if (rng.intBetween(0, 8) === 0) return randomBytes(rng, rng.intBetween(0, 64));
  const items = Array.from({ length: rng.intBetween(1, 6) }, () => randomBytes(rng, rng.intBetween(0, 40)));
  const bytes = encodeProposalBatch(items);
  switch (rng.intBetween(0, 5)) {
    case 0: return bytes;
    case 1: {
      const flipped = bytes.slice();
      const at = rng.intBetween(0, flipped.length);
      flipped[at] = (flipped[at] ?? 0) ^ (1 << rng.intBetween(0, 8));
      return flipped;
    }
    case 2: return bytes.slice(0, rng.intBetween(0, bytes.length));
    case 3: return new Uint8Array([...bytes, ...randomBytes(rng, rng.intBetween(1, 8))]);
    default: {
      const forged = bytes.slice();
      new DataView(forged.buffer).setUint32(rng.intBetween(0, 2) === 0 ? 1 : 5, rng.intBetween(0, 2 ** 31) * 2);
      return forged;
    }
  }
}

describe('proposal batch wire format under arbitrary input', () => {
  it('never throws; what it accepts re-encodes to the same bytes and stays within bounds', () => {
    const rng = createRng(16);
    let accepted = 0;
    let refused = 0;
    for (let iteration = 0; iteration < 5_000; iteration++) {
      const bytes = message(rng);
      const decoded = decodeProposalBatch(bytes);
      if (!decoded.ok) {
        expect(decoded.problem).toMatch(/proposal batch/);
        refused += 1;
        continue;
      }
      accepted += 1;
      expect(decoded.items.length).toBeGreaterThanOrEqual(1);
      expect(decoded.items.length).toBeLessThanOrEqual(proposalBatchItemsMax);
      expect(decoded.items.length === 1 || bytes.byteLength <= proposalBatchBytesMax).toBe(true);
      expect(encodeProposalBatch(decoded.items)).toEqual(bytes);
    }
    // Both outcomes were exercised, so neither branch passes vacuously.
    expect(accepted).toBeGreaterThan(500);
    expect(refused).toBeGreaterThan(500);
  });

  it('items are copies: reusing the receive buffer does not change accepted proposals', () => {
    const buffer = encodeProposalBatch([new Uint8Array([1, 2, 3]), new Uint8Array([4])]);
    const decoded = decodeProposalBatch(buffer);
    buffer.fill(0);
    expect(decoded.ok && decoded.items.map((item) => [...item])).toEqual([[1, 2, 3], [4]]);
  });
});
