import type { NostrEvent } from 'nostr-tools/core';
import type { RelayDeliveries } from './relay-deliveries.js';

/** One relay's answer for one event: `ok` only when the relay said `OK` true. */
export interface RelayOutcome {
  relay: string;
  ok: boolean;
  /** The relay's message (`blocked: …`), or why there was no answer (`cannot connect`, `timed out`). */
  message: string;
}

/** Sends `events` to `relays`; resolves with every relay's outcome per event id. Never rejects. */
export type SendToRelays = (
  events: readonly NostrEvent[],
  relays: readonly string[],
) => Promise<Map<string, RelayOutcome[]>>;

/** Options of {@link RelayPublishing}. */
export interface RelayPublishingOptions {
  /** `SIEGEL_RELAYS`: where every signed event goes (none: publishing is off). */
  relays: readonly string[];
  deliveries: RelayDeliveries;
  send: SendToRelays;
  /** How often the retry loop looks for due deliveries, in ms (default 15 000). */
  retryEveryMs?: number;
  log?: (line: string) => void;
  now?: () => number;
}

/**
 * Publishing of the file server's signed events to relays (NIP-01 `EVENT`). {@link publish} records the
 * event as owed to every configured relay first (durable, in SQLite), then sends it and marks each relay
 * that answered `OK` true; the sign response's `published_to` lists exactly those. Every other relay keeps
 * the event in the outbox, and the retry loop ({@link start}) offers it again with backoff (30 s doubling to
 * 1 h), across restarts.
 */
export class RelayPublishing {
  private readonly relays: readonly string[];
  private readonly deliveries: RelayDeliveries;
  private readonly send: SendToRelays;
  private readonly retryEveryMs: number;
  private readonly log: (line: string) => void;
  private readonly now: () => number;
  private timer: NodeJS.Timeout | undefined;
  private retrying: Promise<void> | undefined;

  constructor(options: RelayPublishingOptions) {
    this.relays = options.relays;
    this.deliveries = options.deliveries;
    this.send = options.send;
    this.retryEveryMs = options.retryEveryMs ?? 15_000;
    this.log = options.log ?? ((line) => console.log(line));
    this.now = options.now ?? Date.now;
  }

  /** Publishing is on: relays are configured. */
  get enabled(): boolean {
    return this.relays.length > 0;
  }

  /**
   * Send a freshly signed event to every configured relay; resolves with the relays that took it (`OK`
   * true), in configuration order. The others keep it in the outbox. Never rejects.
   */
  async publish(event: NostrEvent): Promise<string[]> {
    if (!this.enabled) return [];
    this.deliveries.enqueue(event.id, this.relays, this.now());
    const outcomes = (await this.send([event], this.relays)).get(event.id) ?? [];
    this.record(event.id, outcomes, 0);
    const taken = new Set(outcomes.filter((outcome) => outcome.ok).map((outcome) => outcome.relay));
    const published = this.relays.filter((relay) => taken.has(relay));
    const refused = outcomes.filter((outcome) => !outcome.ok);
    this.log(
      `Event ${event.id.slice(0, 12)}… published to ${published.length} of ${this.relays.length} relays` +
        (refused.length > 0
          ? ` (${refused.map((o) => `${o.relay}: ${o.message}`).join('; ')} — kept in the outbox)`
          : ''),
    );
    return published;
  }

  /** Offer every due delivery again, grouped by relay. Resolves when done; never rejects. */
  async retryDue(): Promise<void> {
    const due = this.deliveries.due(this.now());
    if (due.length === 0) return;
    const byRelay = new Map<string, typeof due>();
    for (const delivery of due) {
      const list = byRelay.get(delivery.relay) ?? [];
      list.push(delivery);
      byRelay.set(delivery.relay, list);
    }
    let delivered = 0;
    await Promise.all(
      [...byRelay].map(async ([relay, list]) => {
        const answers = await this.send(
          list.map((delivery) => delivery.event),
          [relay],
        );
        for (const delivery of list) {
          const outcomes = answers.get(delivery.eventId) ?? [{ relay, ok: false, message: 'no answer' }];
          this.record(delivery.eventId, outcomes, delivery.attempts);
          if (outcomes.some((outcome) => outcome.ok)) delivered += 1;
        }
      }),
    );
    const { pending } = this.deliveries.count();
    this.log(`Relay outbox: ${delivered} of ${due.length} due deliveries made, ${pending} waiting`);
  }

  /** Start the retry loop (an unref'd timer; one pass at a time). */
  start(): void {
    if (!this.enabled || this.timer) return;
    this.timer = setInterval(() => {
      this.retrying ??= this.retryDue().finally(() => {
        this.retrying = undefined;
      });
    }, this.retryEveryMs);
    this.timer.unref();
  }

  /** Stop the retry loop and wait for a pass in progress. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.retrying;
  }

  private record(eventId: string, outcomes: readonly RelayOutcome[], attempts: number): void {
    const now = this.now();
    for (const outcome of outcomes) {
      if (outcome.ok) this.deliveries.markDelivered(eventId, outcome.relay, now);
      else this.deliveries.markFailed(eventId, outcome.relay, outcome.message, attempts, now);
    }
  }
}
