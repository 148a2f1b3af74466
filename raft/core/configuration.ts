// Owns: the group's configuration (voters and learners) as data: validation, one-server
// changes (Raft thesis §4.1-4.3), and the byte encoding carried by 'configuration' entries.
// Pure. Must not decide when a change is allowed in the protocol (membership.ts does).
import { assert } from '../stdx/index.ts';
import type { Configuration, NodeId } from './types.ts';

export type MembershipChangeType = 'addLearner' | 'promote' | 'remove';

export interface MembershipChange {
  readonly type: MembershipChangeType;
  readonly id: NodeId;
}

/** Member ids are subjects and file names elsewhere; 255 bytes is generous (record.ts agrees). */
const memberIdLengthMax = 255;

export function assertConfiguration(configuration: Configuration): void {
  const all = [...configuration.voters, ...configuration.learners];
  assert(new Set(all).size === all.length, 'a member is either a voter or a learner, once');
  assert(all.every((id) => id.length > 0 && id.length <= memberIdLengthMax), 'member ids are 1-255 characters');
}

export function isMember(configuration: Configuration, id: NodeId): boolean {
  return configuration.voters.includes(id) || configuration.learners.includes(id);
}

/**
 * The configuration after one change, or a reason it is not a valid change of this one. Only
 * one server changes at a time, so any majority of the old and of the new configuration
 * overlap (thesis §4.1), and no joint consensus is needed.
 */
export function changedConfiguration(configuration: Configuration, change: MembershipChange): Configuration | string {
  assertConfiguration(configuration);
  assert(change.id.length > 0, 'a membership change names a member');
  const { voters, learners } = configuration;
  switch (change.type) {
    case 'addLearner':
      if (isMember(configuration, change.id)) return `${change.id} is already a member`;
      return { voters: [...voters], learners: [...learners, change.id] };
    case 'promote':
      if (!learners.includes(change.id)) return `${change.id} is not a learner`;
      return { voters: [...voters, change.id], learners: learners.filter((id) => id !== change.id) };
    case 'remove':
      if (!isMember(configuration, change.id)) return `${change.id} is not a member`;
      if (voters.length === 1 && voters[0] === change.id) return 'the last voter cannot be removed';
      return { voters: voters.filter((id) => id !== change.id), learners: learners.filter((id) => id !== change.id) };
    default:
      return `unknown change ${String((change as { type: unknown }).type)}`;
  }
}

const textEncoder = new TextEncoder();
const textDecoder = new TextDecoder();

/** A configuration entry's data: UTF-8 JSON {"voters":[...],"learners":[...]}. */
export function encodeConfiguration(configuration: Configuration): Uint8Array {
  assertConfiguration(configuration);
  return textEncoder.encode(JSON.stringify({ voters: configuration.voters, learners: configuration.learners }));
}

export function decodeConfiguration(data: Uint8Array): Configuration {
  const parsed = JSON.parse(textDecoder.decode(data)) as { voters?: unknown; learners?: unknown };
  assert(Array.isArray(parsed.voters) && parsed.voters.every((id) => typeof id === 'string'), 'configuration voters are ids');
  assert(Array.isArray(parsed.learners) && parsed.learners.every((id) => typeof id === 'string'), 'configuration learners are ids');
  const configuration = { voters: parsed.voters as NodeId[], learners: parsed.learners as NodeId[] };
  assertConfiguration(configuration);
  return configuration;
}

export function sameConfiguration(left: Configuration, right: Configuration): boolean {
  const same = (a: readonly NodeId[], b: readonly NodeId[]): boolean => a.length === b.length && a.every((id) => b.includes(id));
  return same(left.voters, right.voters) && same(left.learners, right.learners);
}
