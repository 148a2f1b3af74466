// Owns: drawing a lifecycle machine's statechart as SVG for the console: states as boxes in a
// row (initial first, in the machine's order), an arrow per transition to another state with
// its event and condition, the transitions that stay listed under their state, and the current
// state highlighted (class "current", and data-state on every state for tests and styling).
import type { Statechart } from '../../../actors/index.ts';

const svgNamespace = 'http://www.w3.org/2000/svg';
const boxWidth = 150;
const boxHeight = 48;
/** Space between two boxes: room for the longest label of an arrow between neighbours (11 px text, ~6.2 px a character). */
function gapFor(chart: Statechart): number {
  let longest = 0;
  for (const state of chart.states) {
    for (const transition of state.transitions) {
      const condition = transition.when ?? transition.guard;
      longest = Math.max(longest, transition.event.length, condition === undefined ? 0 : condition.length + 2);
    }
  }
  return Math.min(360, Math.max(170, Math.ceil(longest * 6.2) + 24));
}
const top = 70;

function element<K extends keyof SVGElementTagNameMap>(name: K, attributes: Record<string, string | number>, text?: string): SVGElementTagNameMap[K] {
  const node = document.createElementNS(svgNamespace, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  if (text !== undefined) node.textContent = text;
  return node;
}

export function statechartSvg(chart: Statechart, current: string): SVGSVGElement {
  const gap = gapFor(chart);
  const columns = new Map(chart.states.map((state, position) => [state.name, position]));
  const width = chart.states.length * boxWidth + (chart.states.length - 1) * gap + 40;
  const height = top + boxHeight + 150;
  const svg = element('svg', { width, height, viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': `${chart.id} statechart, current state ${current}` });
  const defs = element('defs', {});
  const marker = element('marker', { id: 'arrow', viewBox: '0 0 10 10', refX: 10, refY: 5, markerWidth: 8, markerHeight: 8, orient: 'auto-start-reverse' });
  marker.append(element('path', { d: 'M 0 0 L 10 5 L 0 10 z', fill: '#7b8594' }));
  defs.append(marker);
  svg.append(defs);
  const x = (name: string): number => 20 + (columns.get(name) ?? 0) * (boxWidth + gap);
  let arc = 0;
  for (const state of chart.states) {
    for (const transition of state.transitions) {
      if (transition.target === undefined || transition.target === state.name) continue;
      const condition = transition.when ?? transition.guard;
      const label = `${transition.event}${condition === undefined ? '' : ` [${condition}]`}`;
      const from = x(state.name);
      const to = x(transition.target);
      const adjacent = Math.abs((columns.get(state.name) ?? 0) - (columns.get(transition.target) ?? 0)) === 1;
      const group = element('g', { class: 'edge', 'data-event': transition.event });
      if (adjacent) {
        const y = top + boxHeight / 2;
        group.append(element('path', { d: `M ${from + boxWidth} ${y} L ${to} ${y}` }));
        // The event above the arrow, its condition below: both fit the gap.
        group.append(element('text', { x: (from + boxWidth + to) / 2, y: y - 8, 'text-anchor': 'middle' }, transition.event));
        if (condition !== undefined) group.append(element('text', { x: (from + boxWidth + to) / 2, y: y + 16, 'text-anchor': 'middle' }, `[${condition}]`));
      } else {
        arc += 1;
        const depth = 40 + arc * 30;
        const startX = from + boxWidth / 2;
        const endX = to + boxWidth / 2;
        const y = top + boxHeight;
        group.append(element('path', { d: `M ${startX} ${y} C ${startX} ${y + depth}, ${endX} ${y + depth}, ${endX} ${y}` }));
        group.append(element('text', { x: (startX + endX) / 2, y: y + depth * 0.75 + 4, 'text-anchor': 'middle' }, label));
      }
      svg.append(group);
    }
  }
  for (const state of chart.states) {
    const classes = ['state', ...(state.name === current ? ['current'] : []), ...(state.final ? ['final'] : [])];
    const group = element('g', { class: classes.join(' '), 'data-state': state.name });
    const left = x(state.name);
    group.append(element('rect', { x: left, y: top, width: boxWidth, height: boxHeight, rx: 10 }));
    group.append(element('text', { x: left + boxWidth / 2, y: top + boxHeight / 2 + 5, 'text-anchor': 'middle' }, `${state.name}${state.final ? ' ◉' : ''}`));
    if (state.description !== undefined) group.append(element('title', {}, state.description));
    const stays = state.transitions.filter((transition) => transition.target === undefined || transition.target === state.name);
    stays.forEach((transition, position) => {
      group.append(element('text', { class: 'stays', x: left + boxWidth / 2, y: top - 14 - position * 14, 'text-anchor': 'middle' }, `↻ ${transition.event}`));
    });
    if (state.name === chart.initial) group.append(element('text', { class: 'stays', x: left - 4, y: top + boxHeight + 16 }, 'initial'));
    svg.append(group);
  }
  return svg;
}
