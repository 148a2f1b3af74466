// Owns: what travels on the simulated network (Raft messages and the client protocol) and its
// one-line trace format. Pure data; the client protocol is the simulator's own, not kstore's.
import type { Message } from '../../raft/core/index.ts';

export type ClientCommand =
  | { readonly kind: 'get'; readonly key: string }
  | { readonly kind: 'put' | 'append'; readonly key: string; readonly value: string; readonly sequence: number };

export interface ClientRequest {
  readonly type: 'clientRequest';
  readonly from: string;
  readonly to: string;
  /** History id of the operation; every retry of the operation carries the same id. */
  readonly operationId: number;
  readonly command: ClientCommand;
}

export type ClientAnswer =
  | { readonly kind: 'ok' }
  | { readonly kind: 'value'; readonly value: string }
  | { readonly kind: 'redirect'; readonly leaderId: string | undefined }
  | { readonly kind: 'retry'; readonly reason: string };

export interface ClientReply {
  readonly type: 'clientReply';
  readonly from: string;
  readonly to: string;
  readonly operationId: number;
  readonly answer: ClientAnswer;
}

export type Packet = Message | ClientRequest | ClientReply;

export function isRaftMessage(packet: Packet): packet is Message {
  return packet.type !== 'clientRequest' && packet.type !== 'clientReply';
}

export function describePacket(packet: Packet): string {
  const route = `${packet.from}->${packet.to}`;
  switch (packet.type) {
    case 'clientRequest': return `req ${route} op${packet.operationId} ${describeCommand(packet.command)}`;
    case 'clientReply': return `rep ${route} op${packet.operationId} ${describeAnswer(packet.answer)}`;
    case 'requestVote': return `${packet.preVote === true ? 'prevote' : 'vote'} ${route} t${packet.term} last=${packet.lastLogIndex}/${packet.lastLogTerm}`;
    case 'voteResponse': return `${packet.preVote === true ? 'prevote' : 'vote'}-resp ${route} t${packet.term} ${packet.granted ? 'granted' : 'denied'}`;
    case 'appendEntries':
      return `append ${route} t${packet.term} prev=${packet.prevLogIndex}/${packet.prevLogTerm} n=${packet.entries.length} commit=${packet.commit} r=${packet.round}`;
    case 'appendResponse':
      return packet.success
        ? `append-ok ${route} t${packet.term} match=${packet.matchIndex} r=${packet.round}`
        : `append-rej ${route} t${packet.term} at=${packet.rejectedIndex} hint=${packet.hintIndex} r=${packet.round}`;
    case 'installSnapshot': return `snapshot ${route} t${packet.term} at=${packet.snapshot.index}/${packet.snapshot.term} off=${packet.offset} done=${packet.done}`;
    case 'snapshotResponse': return `snapshot-resp ${route} t${packet.term} at=${packet.snapshotIndex} next=${packet.nextOffset} installed=${packet.installed}`;
    case 'timeoutNow': return `timeout-now ${route} t${packet.term}`;
  }
}

export function describeCommand(command: ClientCommand): string {
  return command.kind === 'get' ? `get ${command.key}` : `${command.kind} ${command.key}=${command.value} s${command.sequence}`;
}

function describeAnswer(answer: ClientAnswer): string {
  switch (answer.kind) {
    case 'ok': return 'ok';
    case 'value': return `value "${answer.value}"`;
    case 'redirect': return `redirect ${answer.leaderId ?? '?'}`;
    case 'retry': return `retry (${answer.reason})`;
  }
}
