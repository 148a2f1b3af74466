// A stand-in for RaftNode's role in tests of what follows it (the event publisher, the leader
// duties): isLeader() answers the current value and counts the calls, onLeadershipChange()
// registers a listener as RaftNode.onRoleChange does, set() changes the role and calls them.

export interface RoleSwitch {
  isLeader(): boolean;
  onLeadershipChange(listener: () => void): () => void;
  set(leads: boolean): void;
  isLeaderCalls(): number;
  listeners(): number;
}

export function roleSwitch(initiallyLeads = false): RoleSwitch {
  let leads = initiallyLeads;
  let isLeaderCalls = 0;
  const listeners = new Set<() => void>();
  return {
    isLeader: (): boolean => {
      isLeaderCalls += 1;
      return leads;
    },
    onLeadershipChange: (listener: () => void): (() => void) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    set(value: boolean): void {
      leads = value;
      for (const listener of listeners) listener();
    },
    isLeaderCalls: (): number => isLeaderCalls,
    listeners: (): number => listeners.size,
  };
}
