// Owns: one simulated client: it issues KV operations one at a time to the member it believes
// leads, retries on timeout, redirect or "retry" answers (writes keep their sequence number, so
// the state machine applies them at most once), may abandon an operation after `timeoutsMax`
// unanswered attempts during the fault phase (it then stays pending in the history), and records every
// invocation and response. Must not peek at cluster state: it learns only from replies.
import { assert } from '../../raft/stdx/index.ts';
import type { KvInput } from './checkers/linearizability.ts';
import type { History } from './history.ts';
import type { ClientKnobs } from './options.ts';
import type { ClientCommand, ClientReply, Packet } from './packets.ts';
import type { SimRandom } from './random.ts';

export interface ClientEnvironment {
  now(): number;
  send(packet: Packet): void;
  /** Calls wake(token) on this client after `delayMs`. */
  schedule(client: SimClient, delayMs: number, token: number): void;
  trace(text: string): void;
}

interface CurrentOperation {
  readonly operationId: number;
  readonly command: ClientCommand;
  attempts: number;
  /** Attempts that went unanswered; only these count toward abandoning the operation. */
  timeouts: number;
  /** Waiting for a reply (a wake is a timeout) or backing off (a wake sends again). */
  waiting: 'reply' | 'backoff';
}

export class SimClient {
  readonly id: string;
  readonly #members: readonly string[];
  readonly #knobs: ClientKnobs;
  readonly #random: SimRandom;
  readonly #history: History;
  readonly #env: ClientEnvironment;
  #sequence = 0;
  #token = 0;
  #current: CurrentOperation | undefined = undefined;
  #leaderGuess: string | undefined = undefined;
  #newOperations = true;
  completed = 0;
  abandoned = 0;

  constructor(id: string, members: readonly string[], knobs: ClientKnobs, random: SimRandom, history: History, env: ClientEnvironment) {
    this.id = id;
    this.#members = members;
    this.#knobs = knobs;
    this.#random = random;
    this.#history = history;
    this.#env = env;
  }

  get idle(): boolean {
    return this.#current === undefined;
  }

  start(): void {
    this.#wakeAfter(this.#random.between(0, this.#knobs.thinkMaxMs));
  }

  /** Liveness phase: finish the current operation (never abandon it), start no new ones. */
  finishUp(): void {
    this.#newOperations = false;
  }

  wake(token: number): void {
    if (token !== this.#token) return; // superseded by a later schedule
    const current = this.#current;
    if (current === undefined) {
      if (this.#newOperations) this.#begin();
      return;
    }
    if (current.waiting === 'backoff') this.#sendAttempt(current);
    else {
      current.timeouts += 1;
      this.#retry(current, 'timeout', undefined);
    }
  }

  onReply(reply: ClientReply): void {
    const current = this.#current;
    if (current === undefined || reply.operationId !== current.operationId) return; // late or duplicate
    const answer = reply.answer;
    switch (answer.kind) {
      case 'ok': this.#complete(current, undefined); return;
      case 'value': this.#complete(current, answer.value); return;
      case 'redirect': this.#retry(current, 'redirect', answer.leaderId); return;
      case 'retry': this.#retry(current, answer.reason, reply.from); return;
    }
  }

  #begin(): void {
    const command = this.#nextCommand();
    const input: KvInput = command.kind === 'get' ? { kind: 'get', key: command.key } : { kind: command.kind, key: command.key, value: command.value };
    const operationId = this.#history.invoke(this.id, input, this.#env.now());
    const current: CurrentOperation = { operationId, command, attempts: 0, timeouts: 0, waiting: 'reply' };
    this.#current = current;
    this.#sendAttempt(current);
  }

  #nextCommand(): ClientCommand {
    const key = `k${this.#random.between(0, this.#knobs.keyCount - 1)}`;
    if (this.#random.chance(this.#knobs.readProbability)) return { kind: 'get', key };
    this.#sequence += 1;
    const kind = this.#random.chance(this.#knobs.appendProbability) ? 'append' : 'put';
    // Values name their writer, so a read shows exactly which writes it saw.
    return { kind, key, value: `${this.id}.${this.#sequence};`, sequence: this.#sequence };
  }

  #sendAttempt(current: CurrentOperation): void {
    current.attempts += 1;
    current.waiting = 'reply';
    const target = this.#leaderGuess ?? this.#random.pick(this.#members);
    this.#env.send({ type: 'clientRequest', from: this.id, to: target, operationId: current.operationId, command: current.command });
    this.#wakeAfter(this.#knobs.requestTimeoutMs);
  }

  /** Tries again: at once if a leader was named, else after a backoff at a random member. */
  #retry(current: CurrentOperation, reason: string, leaderHint: string | undefined): void {
    if (this.#newOperations && reason === 'timeout' && current.timeouts >= this.#knobs.timeoutsMax) {
      this.#env.trace(`${this.id} abandons op${current.operationId} after ${current.attempts} attempts, ${current.timeouts} timed out`);
      this.abandoned += 1;
      this.#current = undefined;
      this.#wakeAfter(this.#random.between(0, this.#knobs.thinkMaxMs));
      return;
    }
    this.#leaderGuess = reason === 'redirect' ? leaderHint : undefined;
    if (this.#leaderGuess !== undefined) {
      this.#sendAttempt(current);
      return;
    }
    current.waiting = 'backoff';
    // A quarter of the request timeout: long enough for an election to make progress.
    this.#wakeAfter(Math.max(1, Math.floor(this.#knobs.requestTimeoutMs / 4)));
  }

  #complete(current: CurrentOperation, output: string | undefined): void {
    assert(this.#current === current, 'completing an operation that is not current');
    this.#history.complete(current.operationId, output, this.#env.now());
    this.completed += 1;
    this.#current = undefined;
    this.#wakeAfter(this.#random.between(0, this.#knobs.thinkMaxMs));
  }

  #wakeAfter(delayMs: number): void {
    this.#token += 1;
    this.#env.schedule(this, delayMs, this.#token);
  }
}
