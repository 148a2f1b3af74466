// Owns: the real ticker that turns wall-clock time into Raft ticks. The only setInterval in
// raft/. Must not call into the core: it only notifies the driver, which ticks the core from
// its loop.
import { assert } from '../stdx/index.ts';

export interface Ticker {
  stop(): void;
}

export function startTicker(intervalMs: number, onTick: () => void): Ticker {
  assert(Number.isFinite(intervalMs) && intervalMs >= 1, `tick interval must be >= 1 ms, got ${intervalMs}`);
  const timer = setInterval(onTick, intervalMs);
  // A ticking Raft node alone must not keep the process alive; its server sockets do that.
  timer.unref();
  let stopped = false;
  return {
    stop(): void {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
    },
  };
}
