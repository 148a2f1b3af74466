// Owns: the simulated network between members and clients: per-packet loss, duplication and
// delay (independent random delays reorder packets), and partitions between members, which may
// be symmetric (a split into two sides) or asymmetric (one member's outbound or inbound links
// only). A partition is checked when a packet is sent and again when it arrives, as a link that
// goes down also loses what is in flight. Clients are never partitioned, only delayed, lost and
// duplicated. Must not look inside packets.
import { assert } from '../../raft/stdx/index.ts';
import type { NetworkKnobs } from './options.ts';
import type { SimRandom } from './random.ts';

export type PartitionKind = 'split' | 'isolate' | 'outbound' | 'inbound';

export interface Partition {
  readonly kind: PartitionKind;
  readonly description: string;
}

export class PacketSimulator {
  readonly #random: SimRandom;
  readonly #members: readonly string[];
  #knobs: NetworkKnobs;
  /** Cut directed links "from>to". */
  #cuts = new Set<string>();

  constructor(random: SimRandom, knobs: NetworkKnobs, members: readonly string[]) {
    this.#random = random;
    this.#knobs = knobs;
    this.#members = members;
  }

  /** Arrival delays for one packet sent now: none (lost or cut), one, or two (duplicated). */
  transmit(from: string, to: string): number[] {
    assert(from !== to, `packet from ${from} to itself`);
    if (!this.linkUp(from, to)) return [];
    if (this.#random.chance(this.#knobs.lossProbability)) return [];
    const delays = [this.#delay()];
    if (this.#random.chance(this.#knobs.duplicateProbability)) delays.push(this.#delay());
    return delays;
  }

  linkUp(from: string, to: string): boolean {
    return !this.#cuts.has(`${from}>${to}`);
  }

  partitioned(): boolean {
    return this.#cuts.size > 0;
  }

  /** Cuts links by a randomly chosen kind of partition, replacing any current one. */
  partition(): Partition {
    this.#cuts = new Set();
    const kind = this.#random.pick<PartitionKind>(['split', 'isolate', 'outbound', 'inbound']);
    const shuffled = this.#random.shuffled(this.#members);
    const victim = shuffled[0]!;
    if (kind === 'split') {
      const sideSize = this.#random.between(1, Math.floor(this.#members.length / 2));
      const side = new Set(shuffled.slice(0, sideSize));
      for (const from of this.#members) {
        for (const to of this.#members) if (from !== to && side.has(from) !== side.has(to)) this.#cuts.add(`${from}>${to}`);
      }
      return { kind, description: `split {${[...side].sort().join(',')}} | rest` };
    }
    for (const other of this.#members) {
      if (other === victim) continue;
      if (kind !== 'inbound') this.#cuts.add(`${victim}>${other}`);
      if (kind !== 'outbound') this.#cuts.add(`${other}>${victim}`);
    }
    return { kind, description: `${kind} ${victim}` };
  }

  heal(): void {
    this.#cuts = new Set();
  }

  /** After healing for the liveness phase: packets are delayed but no longer lost or duplicated. */
  makeReliable(): void {
    this.#knobs = { ...this.#knobs, lossProbability: 0, duplicateProbability: 0 };
  }

  #delay(): number {
    return this.#random.between(this.#knobs.delayMinMs, this.#knobs.delayMaxMs);
  }
}
