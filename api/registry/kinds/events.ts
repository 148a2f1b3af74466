// Owns: events.k8s.io/v1 Events: a served view of the core/v1 events storage (converted on every
// read, write and watch event), printed with the core event printer.
import type { ResourceKind, StoredAs } from '../kind.ts';
import { schemaOf, standardVerbs } from '../kind.ts';
import { coreToEventsV1, coreViewOf, eventsV1FieldSelectors, eventsV1ToCore } from '../event-conversion.ts';
import { eventsV1Strategy } from '../strategy-workloads.ts';
import { coreEventColumns } from './core.ts';

/** events.k8s.io/v1 Events are core/v1 Events in storage (pkg/apis/events/v1/conversion.go). */
const eventsV1Storage: StoredAs = {
  group: '', version: 'v1', resource: 'events', kind: 'Event', toStored: eventsV1ToCore, fromStored: coreToEventsV1,
};

export const eventsKinds: readonly ResourceKind[] = [
  {
    group: 'events.k8s.io', version: 'v1', resource: 'events', singular: 'event', kind: 'Event',
    namespaced: true, shortNames: ['ev'], categories: [], verbs: standardVerbs,
    nameRule: 'dns1123Subdomain',
    tableLayout: 'columnsOnly',
    // kube prints both groups' events with one printer, from the internal (core) type.
    columns: coreEventColumns.map((column) => ({ ...column, cell: (o, since) => column.cell(coreViewOf(o), since) })),
    fieldSelectors: eventsV1FieldSelectors,
    storage: eventsV1Storage,
    strategy: eventsV1Strategy,
    schema: schemaOf('k8s.io.api.events.v1.Event'),
  },
];
