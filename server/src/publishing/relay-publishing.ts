// publishing/ owns sending signed file events to relays: the deliveries kept until every relay confirmed,
// their retries (`relay-publishing.ts`), and one send to a set of relays (`send-to-relays.ts`).
import { toTerminalSafe } from '@siegel/core';
import type { NostrEvent } from 'nostr-tools/core';
import {
  type DeliveryStore,
  FIRST_RETRY_MS,
  type PendingDelivery,
  retryDelayMs,
} from '../storage/delivery-store.js';

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

/** Defaults of {@link RelayPublishing}. */
export const PUBLISHING_DEFAULTS = {
  /** How often the loop looks for due deliveries besides being woken, in ms. */
  retryEveryMs: 15_000,
  /**
   * How long a claimed delivery is this loop's before it is due again for anyone, in ms: longer than a
   * send takes at most (the sender's connect and answer timeouts, 5 s each).
   */
  leaseMs: 30_000,
  /** Deliveries claimed per pass. */
  batch: 200,
} as const;

/**
 * Once the first relay has confirmed an event after `t` ms, a sign answer waits for the others until `2t` +
 * this many ms (never past `RELAY_WAIT_MS`).
 */
export const STRAGGLER_SLACK_MS = 100;

/** Options of {@link RelayPublishing}. */
export interface RelayPublishingOptions {
  /** `SIEGEL_RELAYS`: where every signed event goes (none: publishing is off). */
  relays: readonly string[];
  /** The outbox (`RecordStore.deliveries`). */
  deliveries: DeliveryStore;
  send: SendToRelays;
  /** The wait after the first failed attempt, doubling up to 1 h (`RELAY_RETRY_MS`, default 30 000 ms). */
  firstRetryMs?: number;
  /** How often the loop looks for due deliveries besides being woken, in ms (default 15 000). */
  retryEveryMs?: number;
  /** How long claimed deliveries stay this loop's (default 30 000 ms; see {@link PUBLISHING_DEFAULTS}). */
  leaseMs?: number;
  log?: (line: string) => void;
  now?: () => number;
}

/**
 * The publisher loop of the file server: one per process. It sends what the relay outbox
 * ({@link DeliveryStore}) holds as due — the rows the sign route committed with each record, and retries
 * after backoff (30 s doubling to 1 h), across restarts — and marks each relay that answered `OK` true. No
 * request waits on it: {@link wake} starts a pass at once (the sign route calls it after committing), and
 * {@link waitForDelivery} lets the route report what confirmed within a short wait.
 *
 * Passes may overlap (a relay that never answers holds its own deliveries for up to its timeout, never the
 * next event's): each pass claims its rows with a lease ({@link DeliveryStore.claimDue}), so no row goes
 * out twice at once — the property that lets every instance run this loop when several share a database:
 * what one instance queued and could not send (it died) is sent by the others once its lease ends.
 */
export class RelayPublishing {
  readonly relays: readonly string[];
  private readonly deliveries: DeliveryStore;
  private readonly send: SendToRelays;
  private readonly firstRetryMs: number;
  private readonly retryEveryMs: number;
  private readonly leaseMs: number;
  private readonly log: (line: string) => void;
  private readonly now: () => number;
  private timer: NodeJS.Timeout | undefined;
  private woken = false;
  private stopped = false;
  private readonly passes = new Set<Promise<void>>();
  /** Per event: relays that answered (either way) in this process, and who waits for that. */
  private readonly watchers = new Map<
    string,
    { answered: Set<string>; confirmed: number; notify: Set<() => void> }
  >();

  constructor(options: RelayPublishingOptions) {
    this.relays = options.relays;
    this.deliveries = options.deliveries;
    this.send = options.send;
    this.firstRetryMs = options.firstRetryMs ?? FIRST_RETRY_MS;
    this.retryEveryMs = options.retryEveryMs ?? PUBLISHING_DEFAULTS.retryEveryMs;
    this.leaseMs = options.leaseMs ?? PUBLISHING_DEFAULTS.leaseMs;
    // Relays' words are in these lines: nothing in them may drive the terminal or the log viewer.
    this.log = options.log ?? ((line) => console.log(toTerminalSafe(line)));
    this.now = options.now ?? Date.now;
  }

  /** Publishing is on: relays are configured. */
  get enabled(): boolean {
    return this.relays.length > 0;
  }

  /** Run a pass soon (on the next turn of the event loop; wakes in the same turn share one pass). */
  wake(): void {
    if (!this.enabled || this.woken || this.stopped) return;
    this.woken = true;
    setImmediate(() => {
      this.woken = false;
      void this.runDue();
    });
  }

  /**
   * Wait for the relays to answer `eventId`, then resolve with those the outbox lists as having taken it
   * (`OK` true), in configuration order. The wait ends when every relay has answered (either way), after
   * `ms` at most, and, once one relay has confirmed after `t` ms, at `2t` + {@link STRAGGLER_SLACK_MS}: a
   * relay much slower than the first does not hold the answer (it is listed later, as it is delivered).
   * Never rejects.
   */
  async waitForDelivery(eventId: string, ms: number): Promise<string[]> {
    if (!this.enabled) return [];
    const watcher = this.watch(eventId);
    const started = performance.now();
    if (watcher.answered.size < this.relays.length && ms > 0) {
      await new Promise<void>((resolve) => {
        let timer = setTimeout(() => done(), ms);
        let shortened = false;
        const done = () => {
          clearTimeout(timer);
          watcher.notify.delete(check);
          resolve();
        };
        const check = () => {
          if (watcher.answered.size >= this.relays.length) return done();
          if (shortened || watcher.confirmed === 0) return;
          shortened = true;
          const elapsed = performance.now() - started;
          const rest = Math.min(ms - elapsed, elapsed + STRAGGLER_SLACK_MS);
          clearTimeout(timer);
          timer = setTimeout(() => done(), Math.max(0, rest));
        };
        watcher.notify.add(check);
      });
    }
    if (watcher.notify.size === 0) this.watchers.delete(eventId);
    return this.deliveredTo(eventId);
  }

  /** The configured relays that took `eventId` so far (the verify API and the event page show them). */
  async deliveredTo(eventId: string): Promise<string[]> {
    if (!this.enabled) return [];
    const taken = new Set(await this.deliveries.deliveredTo(eventId));
    return this.relays.filter((relay) => taken.has(relay));
  }

  /**
   * One pass: claim what is due, send it (grouped by relay, the relays in parallel) and record every
   * answer. Resolves when this pass's relays have answered or timed out; never rejects.
   */
  runDue(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    const pass = this.pass().catch((error: unknown) =>
      this.log(`Relay outbox: a pass failed: ${(error as Error).message}`),
    );
    this.passes.add(pass);
    void pass.finally(() => this.passes.delete(pass));
    return pass;
  }

  /** Start the loop: a pass now (what waits from before a restart), then every `retryEveryMs` (unref'd). */
  start(): void {
    if (!this.enabled || this.timer) return;
    this.wake();
    this.timer = setInterval(() => this.wake(), this.retryEveryMs);
    this.timer.unref();
  }

  /** Stop the loop (no pass starts any more) and wait for the passes in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await Promise.all(this.passes);
  }

  private async pass(): Promise<void> {
    const due = await this.deliveries.claimDue(this.now(), this.leaseMs, PUBLISHING_DEFAULTS.batch);
    if (due.length === 0) return;
    const byRelay = new Map<string, PendingDelivery[]>();
    for (const delivery of due) {
      const list = byRelay.get(delivery.relay) ?? [];
      list.push(delivery);
      byRelay.set(delivery.relay, list);
    }
    const failures: string[] = [];
    let made = 0;
    await Promise.all(
      [...byRelay].map(async ([relay, list]) => {
        const answers = await this.send(
          list.map((delivery) => delivery.event),
          [relay],
        );
        const now = this.now();
        for (const delivery of list) {
          const outcome = answers.get(delivery.eventId)?.find((answer) => answer.relay === relay) ?? {
            relay,
            ok: false,
            message: 'no answer',
          };
          if (outcome.ok) {
            await this.deliveries.markDelivered(delivery.eventId, relay, now);
            made += 1;
          } else {
            const nextTryAt = now + retryDelayMs(delivery.attempts + 1, this.firstRetryMs);
            await this.deliveries.markFailed(delivery.eventId, relay, outcome.message, nextTryAt);
            if (!failures.some((line) => line.startsWith(`${relay}:`)))
              failures.push(`${relay}: ${outcome.message}`);
          }
          this.answered(delivery.eventId, relay, outcome.ok);
        }
      }),
    );
    const { pending } = await this.deliveries.count();
    const events = new Set(due.map((delivery) => delivery.eventId));
    const which = events.size === 1 ? ` for event ${due[0]?.eventId.slice(0, 12)}…` : '';
    const why = failures.length > 0 ? ` (${failures.join('; ')})` : '';
    this.log(`Relays${which}: ${made} of ${due.length} published, ${pending} waiting${why}`);
  }

  private watch(eventId: string) {
    let watcher = this.watchers.get(eventId);
    if (watcher === undefined) {
      watcher = { answered: new Set<string>(), confirmed: 0, notify: new Set<() => void>() };
      this.watchers.set(eventId, watcher);
    }
    return watcher;
  }

  /** `relay` answered `eventId` (`ok`: `OK` true): tell whoever waits. */
  private answered(eventId: string, relay: string, ok: boolean): void {
    const watcher = this.watchers.get(eventId);
    if (watcher === undefined) return;
    watcher.answered.add(relay);
    if (ok) watcher.confirmed += 1;
    for (const notify of [...watcher.notify]) notify();
  }
}
