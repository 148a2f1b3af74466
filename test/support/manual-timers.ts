// Owns: ControllerTimers for controller tests: timers that never fire by themselves, listed
// while pending and fired by hand (as if their delay passed), so a test drives a controller's
// retries and expiries without a clock or sleeps.
import type { ControllerTimers } from '../../actors/controllers/index.ts';

export interface ManualTimer {
  readonly delayMs: number;
  readonly callback: () => void;
  cancelled: boolean;
}

export interface ManualTimers {
  /** What the controller under test is given. */
  readonly fakeTimers: ControllerTimers;
  /** The timers set and not yet fired or cancelled. */
  pending(): ManualTimer[];
  /** Fires every pending timer once. */
  fire(): void;
}

export function manualTimers(): ManualTimers {
  const timers: ManualTimer[] = [];
  const pending = (): ManualTimer[] => timers.filter((timer) => !timer.cancelled);
  return {
    fakeTimers: {
      set(delayMs, callback) {
        const timer: ManualTimer = { delayMs, callback, cancelled: false };
        timers.push(timer);
        return () => { timer.cancelled = true; };
      },
    },
    pending,
    fire: () => {
      const due = pending();
      for (const timer of due) timer.cancelled = true;
      for (const timer of due) timer.callback();
    },
  };
}
