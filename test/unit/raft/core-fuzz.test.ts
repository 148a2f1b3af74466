// A seeded fault sweep over the core with everything this issue adds switched on together:
// PreVote, message loss, partitions, crash-restarts from durable state (snapshot + log + hard
// state), log compaction (snapshots, and members forgetting applied entries without one) with
// InstallSnapshot, membership changes and leadership transfers. After every step: at most one
// leader per term, and every pair of state machines agrees (one applied sequence is a prefix of
// the other). After healing, all members of the final configuration converge. Complements the
// simulator in test/sim, which drives the same RawNode with storage faults and a
// linearizability checker.
import { describe, expect, it } from 'vitest';
import { createRng } from '../../../raft/stdx/index.ts';
import type { Rng } from '../../../raft/stdx/index.ts';
import { CoreNetwork } from './core-network.ts';

/** Steps per seed: enough for several elections, compactions and configuration changes. */
const stepsPerSeed = 400;
const seeds = 150;
/** The group sizes swept (R=3 and R=5), each with one extra member that joins and leaves. */
const groups = [['a', 'b', 'c'], ['a', 'b', 'c', 'e', 'f']] as const;
const joiner = 'd';

function isPrefix(shorter: readonly string[], longer: readonly string[]): boolean {
  return shorter.every((value, position) => longer[position] === value);
}

function checkSafety(network: CoreNetwork, leadersByTerm: Map<number, string>): void {
  for (const id of network.members.keys()) {
    const status = network.node(id).status();
    if (status.role !== 'leader') continue;
    const known = leadersByTerm.get(status.term);
    if (known !== undefined && known !== id) throw new Error(`two leaders in term ${status.term}: ${known} and ${id}`);
    leadersByTerm.set(status.term, id);
  }
  const states = [...network.members.values()].map((member) => member.state);
  for (const left of states) {
    for (const right of states) {
      const [shorter, longer] = left.length <= right.length ? [left, right] : [right, left];
      if (!isPrefix(shorter, longer)) throw new Error('state machines diverged');
    }
  }
}

function randomStep(network: CoreNetwork, rng: Rng, step: number, everyone: readonly string[]): void {
  const leader = network.leaders().find((id) => network.node(id).status().leadTransferee === undefined);
  const roll = rng.intBetween(0, 100);
  if (roll < 30 && leader !== undefined) network.node(leader).propose(new TextEncoder().encode(`s${step}`));
  else if (roll < 33) network.isolate(everyone[rng.intBetween(0, everyone.length)]!);
  else if (roll < 40) network.heal();
  else if (roll < 43) {
    const id = everyone[rng.intBetween(0, everyone.length)]!;
    // Member compaction without a snapshot (leaders then take snapshots on demand), or a snapshot.
    if (rng.intBetween(0, 2) === 0) network.node(id).compactApplied(rng.intBetween(0, 4));
    else if (network.node(id).status().appliedIndex > (network.member(id).snapshot?.meta.index ?? 0)) network.compact(id, rng.intBetween(0, 4));
  } else if (roll < 46 && leader !== undefined) {
    const configuration = network.node(leader).configuration();
    const type = configuration.voters.includes(joiner) ? 'remove' : configuration.learners.includes(joiner) ? 'promote' : 'addLearner';
    network.node(leader).proposeMembershipChange({ type, id: joiner });
  } else if (roll < 47) {
    const id = everyone[rng.intBetween(0, everyone.length)]!;
    network.restart(id, step);
  } else if (roll < 49 && leader !== undefined) {
    const voters = network.node(leader).configuration().voters.filter((id) => id !== leader);
    if (voters.length > 0) network.node(leader).transferLeadership(voters[rng.intBetween(0, voters.length)]!);
  } else {
    network.tick(everyone[rng.intBetween(0, everyone.length)]!);
  }
  network.pump();
}

function runSeed(seed: number, ids: readonly string[]): CoreNetwork {
  const rng = createRng(seed);
  const everyone = [...ids, joiner];
  const network = new CoreNetwork(ids, {}, 10, { snapshotChunkBytes: 24 });
  network.addMember(joiner, ids);
  network.intercept = (message) => (rng.intBetween(0, 100) < 10 ? undefined : message);
  const leadersByTerm = new Map<number, string>();
  for (let step = 0; step < stepsPerSeed; step += 1) {
    randomStep(network, rng, step, everyone);
    checkSafety(network, leadersByTerm);
  }
  network.heal();
  network.intercept = undefined;
  for (let round = 0; round < 200; round += 1) {
    for (const id of everyone) network.tick(id);
    network.pump();
    checkSafety(network, leadersByTerm);
  }
  return network;
}

describe(`raft core - seeded fault sweep with compaction, membership and transfer (${seeds} seeds)`, () => {
  it.each(groups.map((ids) => [ids.length, ids] as const))('R=%i: one leader per term, agreeing state machines, convergence once healed', (_, ids) => {
    for (let seed = 1; seed <= seeds; seed += 1) {
      let network: CoreNetwork;
      try {
        network = runSeed(seed, ids);
      } catch (error) {
        throw new Error(`seed ${seed}: ${String(error)}`, { cause: error });
      }
      const leaders = network.leaders();
      expect(leaders, `seed ${seed}: one leader after healing`).toHaveLength(1);
      const configuration = network.node(leaders[0]!).configuration();
      const members = [...configuration.voters, ...configuration.learners];
      const leaderState = network.member(leaders[0]!).state;
      for (const id of members) expect(network.member(id).state, `seed ${seed}: ${id} converged`).toEqual(leaderState);
    }
  });
});
