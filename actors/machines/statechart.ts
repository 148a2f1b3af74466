// Owns: the neutral, JSON form of a lifecycle machine's statechart (states, which is initial or
// final, and each transition's event, guard and target, with the plain-words descriptions the
// machine's definition carries), taken from an xstate machine's definition; and its text
// drawing for a terminal, with one state marked as current. What the lifecycle inspector shows
// (API, `kstore inspect`, console); it never runs a machine.
import type { AnyStateMachine } from 'xstate';

export interface StatechartTransition {
  readonly event: string;
  /** The guard's name, when the transition has one. */
  readonly guard?: string;
  /** Plain words for the condition (the guard's description in the machine), when given. */
  readonly when?: string;
  /** Target state; absent for a transition that stays (it only updates the context). */
  readonly target?: string;
}

export interface StatechartState {
  readonly name: string;
  readonly description?: string;
  readonly final: boolean;
  readonly transitions: readonly StatechartTransition[];
}

export interface Statechart {
  readonly id: string;
  readonly initial: string;
  readonly states: readonly StatechartState[];
}

/** Plain words for guards, by guard name (the machine module supplies them). */
export type GuardDescriptions = Readonly<Record<string, string>>;

interface DefinitionTransition {
  readonly eventType: string;
  readonly guard?: { readonly type?: string } | string;
  /** State node ids ("#deletion.finalizing") or the state nodes themselves. */
  readonly target?: readonly (string | { readonly id: string })[];
}

function stateName(target: string | { readonly id: string }): string {
  // xstate targets are ids like "deletion.finalizing" (or state nodes with one); flat machines only.
  const id = typeof target === 'string' ? target : target.id;
  const dot = id.lastIndexOf('.');
  return dot === -1 ? id.replace(/^#/, '') : id.slice(dot + 1);
}

function guardName(guard: DefinitionTransition['guard']): string | undefined {
  if (guard === undefined) return undefined;
  return typeof guard === 'string' ? guard : guard.type;
}

/** The statechart of a flat (one level of states) xstate machine. */
export function statechartOf(machine: AnyStateMachine, guards: GuardDescriptions = {}): Statechart {
  const definition = machine.definition;
  const initialTarget = definition.initial?.target?.[0];
  const initial = initialTarget === undefined ? '' : stateName(initialTarget);
  const states: StatechartState[] = Object.entries(definition.states).map(([name, state]) => {
    const transitions: StatechartTransition[] = [];
    for (const [event, candidates] of Object.entries(state.on as Record<string, readonly DefinitionTransition[]>)) {
      for (const candidate of candidates) {
        const guard = guardName(candidate.guard);
        const target = candidate.target?.[0];
        const when = guard === undefined ? undefined : guards[guard];
        transitions.push({
          event,
          ...(guard === undefined ? {} : { guard }),
          ...(when === undefined ? {} : { when }),
          ...(target === undefined ? {} : { target: stateName(target) }),
        });
      }
    }
    return {
      name,
      ...(typeof state.description === 'string' ? { description: state.description } : {}),
      final: state.type === 'final',
      transitions,
    };
  });
  return { id: definition.id, initial, states };
}

/**
 * The statechart as text, one block per state, the current one marked:
 *
 *   deletion
 *   ▶ live        the object is in use
 *       DELETE [finalizers remain] → finalizing
 *       ...
 *     removed (final)
 */
export function drawStatechart(chart: Statechart, current: string | undefined): string {
  const width = Math.max(...chart.states.map((state) => state.name.length + (state.final ? ' (final)'.length : 0)));
  const lines = [chart.id];
  for (const state of chart.states) {
    const marker = state.name === current ? '▶' : ' ';
    const label = `${state.name}${state.final ? ' (final)' : ''}`;
    const initialMark = state.name === chart.initial ? '  (initial)' : '';
    const notes = `${state.description === undefined ? '' : `  ${state.description}`}${initialMark}`;
    lines.push(notes === '' ? `${marker} ${label}` : `${marker} ${label.padEnd(width)}${notes}`);
    for (const transition of state.transitions) {
      const condition = transition.when ?? transition.guard;
      lines.push(`      ${transition.event}${condition === undefined ? '' : ` [${condition}]`} → ${transition.target ?? `${state.name} (stays)`}`);
    }
  }
  return lines.join('\n');
}
