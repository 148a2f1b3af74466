// Owns: the kstore web console (served by the API tier at /console/): a cluster page (each store
// member's role, term, commit and applied index; the API replicas) refreshed every 2 s, and an
// object page (#/object?path=<API path>) that draws each lifecycle machine's statechart with the
// current state highlighted and the history of transitions beside it, kept live by a watch of
// the object's `lifecycle` subresource. Every request goes to the API it is served from, with
// the browser's credentials (a client certificate, or kubectl proxy's).
import type { ClusterView, ObjectLifecycleView, StorageUsageView } from '../view-types.ts';
import { statechartSvg } from './statechart-svg.ts';

const main = document.querySelector<HTMLElement>('#main')!;
let stopCurrentPage: (() => void) | undefined;

function el<K extends keyof HTMLElementTagNameMap>(tag: K, attributes: Record<string, string> = {}, ...children: (Node | string)[]): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  node.append(...children);
  return node;
}

function table(headers: readonly string[], rows: readonly (readonly string[])[], id: string): HTMLTableElement {
  return el('table', { id },
    el('thead', {}, el('tr', {}, ...headers.map((header) => el('th', {}, header)))),
    el('tbody', {}, ...rows.map((row) => el('tr', {}, ...row.map((cell) => el('td', { class: 'mono' }, cell))))));
}

async function fetchJson<T>(path: string): Promise<T> {
  const response = await fetch(path, { headers: { accept: 'application/json' } });
  const text = await response.text();
  if (!response.ok) {
    let message = text;
    try {
      message = (JSON.parse(text) as { message?: string }).message ?? text;
    } catch {
      // not a Status body
    }
    throw new Error(`${response.status}: ${message}`);
  }
  return JSON.parse(text) as T;
}

function showError(error: unknown): void {
  main.replaceChildren(el('p', { class: 'error' }, error instanceof Error ? error.message : String(error)));
}

function storageText(storage: StorageUsageView | undefined): string {
  if (storage === undefined) return '-';
  const mebibytes = (bytes: number): string => `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
  const usage = `${mebibytes(storage.usedBytes)} of ${mebibytes(storage.quotaBytes)}, ${mebibytes(storage.freeBytes)} free`;
  return storage.alarm === undefined ? usage : `${usage} — ALARM: ${storage.alarm}`;
}

function clusterPage(): () => void {
  let stopped = false;
  const render = (view: ClusterView): void => {
    main.replaceChildren(
      el('h1', {}, `Cluster — leader ${view.leader ?? 'none'}`),
      el('h2', {}, 'Store members'),
      table(['ID', 'ROLE', 'TERM', 'COMMIT', 'APPLIED', 'LEADER', 'STORAGE'], view.members.map((member) => [
        member.id, member.failure === undefined ? member.role : `${member.role} (failed: ${member.failure})`, String(member.term), String(member.commitIndex), String(member.appliedIndex), member.leaderId ?? '-',
        storageText(member.storage),
      ]), 'members'),
      el('h2', {}, 'API replicas'),
      table(['NAME', 'URL', 'REVISION', 'READY'], view.replicas.map((replica) => [
        `${replica.name}${replica.self ? ' (this one)' : ''}`, replica.url, String(replica.revision), replica.ready ? 'yes' : 'no',
      ]), 'replicas'),
    );
  };
  const refresh = async (): Promise<void> => {
    while (!stopped) {
      try {
        render(await fetchJson<ClusterView>('/kstore/cluster'));
      } catch (error) {
        showError(error);
      }
      await new Promise((resolve) => setTimeout(resolve, 2_000));
    }
  };
  void refresh();
  return () => { stopped = true; };
}

function renderLifecycle(path: string, view: ObjectLifecycleView, live: boolean): void {
  const where = view.metadata.namespace === undefined ? view.metadata.name : `${view.metadata.namespace}/${view.metadata.name}`;
  const sections: Node[] = [el('h1', {}, `${view.object.kind} ${where}`, el('span', { class: 'live-indicator', id: 'live' }, live ? '● live' : '○ not following'))];
  sections.push(el('p', { class: 'mono' }, `${path} · uid ${view.metadata.uid ?? '-'} · resourceVersion ${view.metadata.resourceVersion ?? '-'}`));
  for (const machine of view.machines) {
    const history = table(['REVISION', 'TIME', 'EVENT', 'FROM', 'TO', 'USER'], machine.history.map((entry) => [
      entry.revision, entry.time, entry.event, entry.from ?? '-', entry.to, entry.user ?? '-',
    ]), `history-${machine.name}`);
    sections.push(
      el('h2', {}, `${machine.name} machine`),
      el('div', { class: 'machine', 'data-machine': machine.name },
        el('div', {},
          el('p', { class: 'waiting', id: `waiting-${machine.name}` }, el('strong', {}, machine.state), ` — ${machine.waitingFor}`),
          statechartSvg(machine.statechart, machine.state)),
        el('div', {}, el('h2', {}, 'History'), history)),
    );
  }
  main.replaceChildren(...sections);
}

function objectPage(path: string): () => void {
  const controller = new AbortController();
  const follow = async (): Promise<void> => {
    // The watch starts with the current view (ADDED), then one event per transition.
    const response = await fetch(`${path}/lifecycle?watch=1`, { signal: controller.signal, headers: { accept: 'application/json' } });
    if (!response.ok || response.body === null) throw new Error(`${response.status}: ${await response.text()}`);
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    let last: ObjectLifecycleView | undefined;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      for (let newline = buffer.indexOf('\n'); newline !== -1; newline = buffer.indexOf('\n')) {
        const event = JSON.parse(buffer.slice(0, newline)) as { type: string; object: ObjectLifecycleView };
        buffer = buffer.slice(newline + 1);
        last = event.object;
        renderLifecycle(path, last, event.type !== 'DELETED');
      }
    }
    if (last !== undefined && !controller.signal.aborted) renderLifecycle(path, last, false);
  };
  follow().catch((error: unknown) => {
    if (!controller.signal.aborted) showError(error);
  });
  return () => controller.abort();
}

function route(): void {
  stopCurrentPage?.();
  const hash = window.location.hash.replace(/^#/, '');
  if (hash.startsWith('/object')) {
    const path = new URLSearchParams(hash.slice(hash.indexOf('?') + 1)).get('path') ?? '';
    if (!path.startsWith('/api/') && !path.startsWith('/apis/')) {
      showError(new Error(`not an object path: ${JSON.stringify(path)} (for example /api/v1/namespaces/default/configmaps/name)`));
      return;
    }
    (document.querySelector<HTMLInputElement>('#object-path')!).value = path;
    stopCurrentPage = objectPage(path);
    return;
  }
  stopCurrentPage = clusterPage();
}

document.querySelector<HTMLFormElement>('#open-object')!.addEventListener('submit', (event) => {
  event.preventDefault();
  const path = (document.querySelector<HTMLInputElement>('#object-path')!).value.trim();
  window.location.hash = `#/object?path=${encodeURIComponent(path)}`;
});
window.addEventListener('hashchange', route);
route();
