// A member whose storage or apply failed claims no role: status() answers 'failed' (never
// 'leader' or a follower at a stale term) with no leader, failed() resolves with the error so
// its owner can fail-stop, and every waiting or later proposal is refused with that error.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RaftNode } from '../../../raft/index.ts';
import type { CommittedEntry } from '../../../raft/index.ts';
import { ListStateMachine } from './list-state-machine.ts';
import { waitFor } from './wait-for.ts';

/** Applies like ListStateMachine until it meets the payload "boom", as a failing apply would. */
class FailingStateMachine extends ListStateMachine {
  override apply(entry: CommittedEntry): string {
    if (new TextDecoder().decode(entry.data) === 'boom') throw new Error('disk gone');
    return super.apply(entry);
  }
}

let baseDir = '';
let node: RaftNode<string> | undefined;

beforeEach(async () => {
  baseDir = await mkdtemp(path.join(os.tmpdir(), 'kstore-raft-failure-'));
});

afterEach(async () => {
  await node?.close().catch(() => undefined);
  node = undefined;
  await rm(baseDir, { recursive: true, force: true });
});

describe('a raft member that failed', () => {
  it('answers role failed with no leader, resolves failed() and refuses proposals', async () => {
    node = await RaftNode.open<string>({ id: 'a', peers: ['a'], dataDir: path.join(baseDir, 'a'), stateMachine: new FailingStateMachine() });
    await waitFor(() => node!.status().role === 'leader', 5_000, 'a leader');
    expect(await node.propose(new TextEncoder().encode('ok'))).toMatchObject({ result: 'applied:ok' });
    const failed = node.failed();
    await expect(node.propose(new TextEncoder().encode('boom'))).rejects.toThrow('disk gone');
    const failure = await failed;
    expect(failure.name).toBe('NodeFailedError');
    expect(failure.reason).toBe('disk gone');
    const status = node.status();
    expect(status.role).toBe('failed');
    expect(status.leaderId).toBeUndefined();
    expect(status.failure).toBe('disk gone');
    await expect(node.propose(new TextEncoder().encode('later'))).rejects.toThrow('disk gone');
    expect((await node.failed()).reason).toBe('disk gone');
  });
});
