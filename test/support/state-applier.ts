// Applies commands straight to a ClusterState as the next log entries (term 1), without Raft:
// for tests of what consumes the state's changes (the event publisher, readers).
import { commandVersion, encodeCommand } from '../../actors/index.ts';
import type { ClusterState, Command } from '../../actors/index.ts';

export function applier(state: ClusterState): (command: Command) => void {
  return (command) => {
    const index = state.appliedIndex() + 1;
    state.apply({ index, term: 1, data: encodeCommand({ version: commandVersion, command }) });
  };
}
