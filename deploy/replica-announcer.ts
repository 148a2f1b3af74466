// Owns: how API replicas know of each other (for the console's cluster page): every 2 s each
// replica publishes its name, URL, revision and readiness on
// `kstore.api.<cluster>.<group>.replicas` and collects the others' announcements; a replica not
// heard from for three periods drops out. Best effort and read-only: nothing depends on it for
// correctness. A replica that advertises an address (--advertise-address) announces it with its
// port; the ready ones' are what the `kubernetes` Endpoints name (deploy/kubernetes-service.ts).
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import type { ApiReplicaView } from '../api/index.ts';
import type { ApiServerEndpoint } from './kubernetes-service.ts';

export interface ReplicaSelf {
  readonly name: string;
  /** Known once the server listens. */
  url(): string;
  revision(): number;
  ready(): boolean;
  /** The advertised address and secure port, if this replica advertises one. */
  endpoint?(): ApiServerEndpoint | undefined;
}

interface Announcement {
  readonly name: string;
  readonly url: string;
  readonly revision: number;
  readonly ready: boolean;
  readonly endpoint?: ApiServerEndpoint;
}

export function replicasSubject(cluster: string, group: string): string {
  return `kstore.api.${cluster}.${group}.replicas`;
}

export class ReplicaAnnouncer {
  readonly #connection: NatsConnection;
  readonly #subject: string;
  readonly #self: ReplicaSelf;
  readonly #intervalMs: number;
  readonly #heard = new Map<string, { readonly announcement: Announcement; readonly at: number }>();
  #subscription: Subscription | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(options: { readonly connection: NatsConnection; readonly cluster: string; readonly group: string; readonly self: ReplicaSelf; readonly intervalMs?: number }) {
    this.#connection = options.connection;
    this.#subject = replicasSubject(options.cluster, options.group);
    this.#self = options.self;
    this.#intervalMs = options.intervalMs ?? 2_000;
  }

  start(): void {
    this.#subscription = this.#connection.subscribe(this.#subject, {
      callback: (error, message) => {
        if (error !== null) return;
        try {
          const announcement = JSON.parse(new TextDecoder().decode(message.data)) as Announcement;
          if (typeof announcement.name === 'string' && announcement.name !== this.#self.name) this.#heard.set(announcement.name, { announcement, at: Date.now() });
        } catch {
          // not an announcement: ignored
        }
      },
    });
    const announce = (): void => {
      if (this.#connection.isClosed()) return;
      const endpoint = this.#self.endpoint?.();
      const announcement: Announcement = { name: this.#self.name, url: this.#self.url(), revision: this.#self.revision(), ready: this.#self.ready(), ...(endpoint === undefined ? {} : { endpoint }) };
      this.#connection.publish(this.#subject, new TextEncoder().encode(JSON.stringify(announcement)));
    };
    announce();
    this.#timer = setInterval(announce, this.#intervalMs);
    this.#timer.unref();
  }

  stop(): void {
    clearInterval(this.#timer);
    this.#subscription?.unsubscribe();
  }

  /** This replica and every other heard from lately, sorted by name. */
  replicas(): ApiReplicaView[] {
    const now = Date.now();
    const others: ApiReplicaView[] = [];
    for (const [name, heard] of this.#heard) {
      if (now - heard.at > 3 * this.#intervalMs) {
        this.#heard.delete(name);
        continue;
      }
      const { name: heardName, url, revision, ready } = heard.announcement;
      others.push({ name: heardName, url, revision, ready, self: false });
    }
    const self: ApiReplicaView = { name: this.#self.name, url: this.#self.url(), revision: this.#self.revision(), ready: this.#self.ready(), self: true };
    return [self, ...others].sort((a, b) => a.name.localeCompare(b.name));
  }

  /** The advertised endpoints of this replica and every other ready one heard from lately. */
  apiServerEndpoints(): ApiServerEndpoint[] {
    const now = Date.now();
    const endpoints: ApiServerEndpoint[] = [];
    const own = this.#self.endpoint?.();
    if (own !== undefined && this.#self.ready()) endpoints.push(own);
    for (const heard of this.#heard.values()) {
      const { endpoint, ready } = heard.announcement;
      if (now - heard.at > 3 * this.#intervalMs || !ready || endpoint === undefined) continue;
      if (typeof endpoint.ip === 'string' && Number.isInteger(endpoint.port)) endpoints.push({ ip: endpoint.ip, port: endpoint.port });
    }
    return endpoints;
  }
}
