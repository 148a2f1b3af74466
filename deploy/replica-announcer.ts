// Owns: how API replicas know of each other (for the console's cluster page): every 2 s each
// replica publishes its name, URL, revision and readiness on
// `kstore.api.<cluster>.<group>.replicas` and collects the others' announcements; a replica not
// heard from for three periods drops out. Best effort and read-only: nothing depends on it for
// correctness.
import type { NatsConnection, Subscription } from '@nats-io/transport-node';
import type { ApiReplicaView } from '../api/index.ts';

export interface ReplicaSelf {
  readonly name: string;
  /** Known once the server listens. */
  url(): string;
  revision(): number;
  ready(): boolean;
}

interface Announcement {
  readonly name: string;
  readonly url: string;
  readonly revision: number;
  readonly ready: boolean;
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
      const announcement: Announcement = { name: this.#self.name, url: this.#self.url(), revision: this.#self.revision(), ready: this.#self.ready() };
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
      others.push({ ...heard.announcement, self: false });
    }
    const self: ApiReplicaView = { name: this.#self.name, url: this.#self.url(), revision: this.#self.revision(), ready: this.#self.ready(), self: true };
    return [self, ...others].sort((a, b) => a.name.localeCompare(b.name));
  }
}
