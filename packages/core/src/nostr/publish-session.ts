import { isAbsolute, relative } from 'node:path';
import type { NostrEvent } from 'nostr-tools/core';
import { SiegelError } from '../errors.js';
import {
  type Outbox,
  type OutboxEntry,
  OutboxJournal,
  readOutbox,
  retryDelayMs,
  writeOutbox,
} from './publish-outbox.js';
import { type EventPublishResult, RelayPublisher, type RelayPublisherOptions } from './relay-publisher.js';
import { parseRelays } from './relays.js';

/** How one relay did in a publishing run. */
export interface RelayPublishCount {
  relay: string;
  /** Events sent to it in this run. */
  sent: number;
  /** Of those, how many it took (`OK` true). */
  accepted: number;
  /** Why the first event it did not take failed (`cannot connect`, `refused: blocked: …`, `timed out: …`). */
  reason?: string;
}

/** What a publishing run did: `signSite`'s `summary.published` and `publishSite`'s result. */
export interface PublishReport {
  /** Distinct events sent in this run. */
  events: number;
  /** Per relay, in the configured order (then the outbox's other relays). */
  relays: RelayPublishCount[];
  /** Events sent in this run that no relay has taken so far. */
  unreached: number;
  /** Events sent in this run that every relay they were sent to has taken (none of them waits). */
  published: number;
  /** Events in the outbox after the run, waiting for some relay. */
  waiting: number;
  /** The outbox file. */
  outboxFile: string;
}

/** Options of {@link PublishSession.open}. */
export interface PublishSessionOptions {
  /** Where new events go (validated with `parseRelays`). */
  relays: readonly string[];
  /** The outbox file (`outboxFileOf(cacheFile)`). */
  outboxFile: string;
  /** Timeouts and window of the {@link RelayPublisher}. */
  publisher?: RelayPublisherOptions;
  /**
   * How long {@link PublishSession.finish} waits for the relays' answers, in milliseconds (default
   * {@link PUBLISH_BUDGET_MS}); what is not confirmed by then waits in the outbox.
   */
  budgetMs?: number;
  /** The clock, for the outbox's retry times (default `Date.now`). */
  now?: () => number;
}

/** Default of {@link PublishSessionOptions.budgetMs}: 5 s (`signSite`'s default `publishTimeoutMs`). */
export const PUBLISH_BUDGET_MS = 5_000;
/** After the budget, how long the publisher has to fail what it still holds once closed. */
const CLOSE_GRACE_MS = 1_000;

/** One `publish` call in flight: its events, the relays they went to, and whether it was answered. */
interface PublishTask {
  events: readonly NostrEvent[];
  relays: readonly string[];
  done: Promise<void>;
  settled: boolean;
}

/**
 * One publishing run over a durable outbox: each event handed in is first appended to the outbox's journal
 * (so a run killed while publishing loses nothing: the next run folds the journal into the outbox and sends
 * it again), then sent (nothing waits for the network until {@link finish}); every answer updates the
 * outbox in memory, and {@link finish} waits for the last answers — at most the run's budget, after which
 * the connections are closed and what is unconfirmed stays in the outbox — writes the outbox (atomically;
 * removed when empty) and removes the journal. An event leaves the outbox only when every relay it was
 * meant for has taken it; until then it waits there with its attempts and the time of its next try (1 min,
 * doubled per attempt, at most 6 h).
 *
 * @example
 * ```ts
 * const { session } = await PublishSession.open({ relays, outboxFile: '.sign-outbox.json' });
 * session.sendOutbox({ dueOnly: true });
 * session.send(signedEvents);
 * console.log(formatPublishReport(await session.finish()));
 * ```
 */
export class PublishSession {
  readonly relays: readonly string[];
  readonly outbox: Outbox;
  readonly #file: string;
  readonly #publisher: RelayPublisher;
  readonly #now: () => number;
  readonly #budgetMs: number;
  readonly #journal: OutboxJournal;
  readonly #tasks = new Set<PublishTask>();
  /** Set once the budget ran out: later failures say so. */
  #expired: string | undefined;
  #closed = false;
  /** Relays each event was sent to in this run (each pair once). */
  readonly #sent = new Map<string, Set<string>>();
  readonly #counts = new Map<string, RelayPublishCount>();
  #finished: Promise<PublishReport> | undefined;

  private constructor(relays: string[], outbox: Outbox, file: string, options: PublishSessionOptions) {
    this.relays = relays;
    this.outbox = outbox;
    this.#file = file;
    this.#now = options.now ?? Date.now;
    this.#budgetMs = options.budgetMs ?? PUBLISH_BUDGET_MS;
    this.#journal = new OutboxJournal(file);
    // The outbox may name relays that are no longer configured: its events still go there.
    const known = [...relays];
    for (const entry of outbox.values())
      for (const relay of entry.relays) if (!known.includes(relay) && isRelay(relay)) known.push(relay);
    this.#publisher = new RelayPublisher(known, options.publisher);
    for (const relay of known) this.#counts.set(relay, { relay, sent: 0, accepted: 0 });
  }

  /**
   * Read the outbox and get ready to publish (no connection is opened before the first event).
   * @returns the session, and a warning when the outbox file was unreadable (it is moved aside, not lost).
   * @throws {SiegelError} `invalid_options` for a bad relay URL.
   */
  static async open(options: PublishSessionOptions): Promise<{ session: PublishSession; warning?: string }> {
    const relays = parseRelays(options.relays);
    const { outbox, warning, folded } = await readOutbox(options.outboxFile);
    // An interrupted run's journal: its events are in the outbox file before a new journal starts.
    if (folded) await writeOutbox(options.outboxFile, outbox);
    const session = new PublishSession(relays, outbox, options.outboxFile, options);
    return warning ? { session, warning } : { session };
  }

  /**
   * Send `events` to the configured relays (or to `relays`): each is appended to the outbox's journal
   * first, then sent. Resolves once the journal holds them (the answers come later, see {@link finish}).
   * @throws {SiegelError} `io_error` when the journal cannot be written (nothing is sent then).
   */
  send(events: readonly NostrEvent[], relays: readonly string[] = this.relays): Promise<void> {
    return this.#send(events, relays, true);
  }

  #send(events: readonly NostrEvent[], relays: readonly string[], journal: boolean): Promise<void> {
    if (this.#finished) throw new Error('PublishSession: send after finish');
    const byRelays = new Map<string, NostrEvent[]>();
    for (const event of events) {
      const sent = this.#sent.get(event.id) ?? new Set<string>();
      this.#sent.set(event.id, sent);
      const targets = relays.filter((relay) => !sent.has(relay) && this.#counts.has(relay));
      for (const relay of targets) sent.add(relay);
      if (targets.length === 0) continue;
      const key = targets.join('\n');
      const group = byRelays.get(key);
      if (group) group.push(event);
      else byRelays.set(key, [event]);
    }
    const written: Array<Promise<void>> = [];
    for (const [key, group] of byRelays) {
      const targets = key.split('\n');
      const journalled = journal ? this.#journal.append(group, targets) : Promise.resolve();
      written.push(journalled);
      const task: PublishTask = { events: group, relays: targets, settled: false, done: Promise.resolve() };
      task.done = journalled
        .then(() => this.#publisher.publish(group, targets))
        .then(
          (results) => this.#settle(results, task),
          // Not journalled: not sent either; the events fail here and wait in the outbox.
          (error: unknown) => this.#settle(failAll(task, `not sent: ${(error as Error).message}`), task),
        )
        .finally(() => this.#tasks.delete(task));
      this.#tasks.add(task);
    }
    return Promise.all(written).then(
      () => undefined,
      (cause: unknown) => {
        throw new SiegelError(
          'io_error',
          `Cannot write the outbox journal \`${this.#journal.file}\`: ${(cause as Error).message}`,
          { cause },
        );
      },
    );
  }

  /**
   * Send the outbox's events to the relays each still needs: all of them, or with `dueOnly` only those
   * whose next try has come. Returns how many were sent.
   */
  sendOutbox(options: { dueOnly?: boolean } = {}): number {
    const now = this.#now();
    let count = 0;
    for (const entry of [...this.outbox.values()]) {
      if (options.dueOnly && entry.nextTry > now) continue;
      // Already durable in the outbox file: no journal line.
      void this.#send([entry.event], entry.relays, false);
      count++;
    }
    return count;
  }

  #settle(results: EventPublishResult[], task: PublishTask): void {
    if (task.settled) return;
    task.settled = true;
    const expired = this.#expired;
    for (const { event, accepted, failed: answers } of results) {
      // After the budget, the publisher's own reason (closed, timed out) is the budget's doing.
      const failed = expired ? answers.map(({ relay }) => ({ relay, reason: expired })) : answers;
      for (const relay of accepted) {
        const count = this.#counts.get(relay) as RelayPublishCount;
        count.sent++;
        count.accepted++;
      }
      for (const { relay, reason } of failed) {
        const count = this.#counts.get(relay) as RelayPublishCount;
        count.sent++;
        count.reason ??= reason;
      }
      const entry = this.outbox.get(event.id);
      const remaining = new Set([...(entry?.relays ?? []), ...failed.map((failure) => failure.relay)]);
      for (const relay of accepted) remaining.delete(relay);
      const delivered = [...new Set([...(entry?.delivered ?? []), ...accepted])];
      if (remaining.size === 0) {
        this.outbox.delete(event.id);
        continue;
      }
      const attempts = (entry?.attempts ?? 0) + (failed.length > 0 ? 1 : 0);
      const next: OutboxEntry = {
        event,
        relays: [...remaining],
        delivered,
        attempts,
        nextTry: failed.length > 0 ? this.#now() + retryDelayMs(attempts) : (entry?.nextTry ?? this.#now()),
        lastError: {
          ...entry?.lastError,
          ...Object.fromEntries(failed.map((failure) => [failure.relay, failure.reason])),
        },
      };
      for (const relay of accepted) delete next.lastError?.[relay];
      this.outbox.set(event.id, next);
    }
  }

  /**
   * Wait for the answers — at most the session's budget (`budgetMs`, default 5 s), then close the
   * connections, so that what is not confirmed fails and waits in the outbox — write the outbox and remove
   * the journal. Called again, it returns the same report.
   * @throws {SiegelError} `io_error` when the outbox cannot be written.
   */
  finish(): Promise<PublishReport> {
    this.#finished ??= (async () => {
      try {
        await this.#waitWithinBudget();
      } finally {
        this.#closePublisher();
        await this.#journal.close();
      }
      try {
        await writeOutbox(this.#file, this.outbox);
      } catch (cause) {
        throw new SiegelError(
          'io_error',
          `Cannot write the outbox \`${this.#file}\`: ${(cause as Error).message}`,
          { cause },
        );
      }
      let unreached = 0;
      let published = 0;
      for (const [id, relays] of this.#sent) {
        const entry = this.outbox.get(id);
        if (entry && (entry.delivered ?? []).length === 0) unreached++;
        if (!entry && relays.size > 0) published++;
      }
      return {
        events: [...this.#sent.values()].filter((relays) => relays.size > 0).length,
        published,
        relays: [...this.#counts.values()].filter(
          (count) => count.sent > 0 || this.relays.includes(count.relay),
        ),
        unreached,
        waiting: this.outbox.size,
        outboxFile: this.#file,
      };
    })();
    return this.#finished;
  }

  /** Close the publisher once (it fails what it still holds). */
  #closePublisher(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#publisher.close();
  }

  /**
   * Wait for every publish task, at most the budget. Then close the publisher, which fails what it still
   * holds; a task that does not settle within a grace period after that fails here, for every relay.
   */
  async #waitWithinBudget(): Promise<void> {
    const allDone = async () => {
      while (this.#tasks.size > 0) await Promise.all([...this.#tasks].map((task) => task.done));
    };
    const expired = await raceTimer(allDone(), this.#budgetMs);
    if (!expired) return;
    this.#expired = `no answer within ${formatSeconds(this.#budgetMs)} (the run's publishing budget)`;
    this.#closePublisher();
    if (!(await raceTimer(allDone(), CLOSE_GRACE_MS))) return;
    for (const task of [...this.#tasks]) {
      this.#settle(failAll(task, this.#expired), task);
      this.#tasks.delete(task);
    }
  }
}

/** Every event of `task` failed at every relay it went to, for `reason`. */
function failAll(task: PublishTask, reason: string): EventPublishResult[] {
  const failed = task.relays.map((relay) => ({ relay, reason }));
  return task.events.map((event) => ({ event, accepted: [], failed }));
}

/** Resolves `true` when `ms` pass before `promise` settles, `false` otherwise; the timer never outlives it. */
async function raceTimer(promise: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(true), ms);
  });
  try {
    return await Promise.race([promise.then(() => false), expired]);
  } finally {
    clearTimeout(timer);
  }
}

const formatSeconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;

function isRelay(relay: string): boolean {
  try {
    return parseRelays([relay]).length === 1;
  } catch {
    return false;
  }
}

/**
 * One line about a publishing run: how many of the events sent were taken by every relay, how many each
 * relay took and — when one did not take them all — why (its first failure), and how many events wait in
 * the outbox (named relative to `cwd` when inside it). Empty when nothing was sent and nothing waits.
 *
 * @example
 * ```ts
 * formatPublishReport(report)
 * // 'Siegel: 0 of 40 events published (wss://a: 40, wss://b: 0 — cannot connect); 40 waiting in .sign-outbox.json'
 * ```
 */
export function formatPublishReport(report: PublishReport, cwd = process.cwd()): string {
  if (report.events === 0 && report.waiting === 0) return '';
  const relays = report.relays.map((count) =>
    count.accepted < count.sent && count.reason
      ? `${count.relay}: ${count.accepted} — ${count.reason}`
      : `${count.relay}: ${count.accepted}`,
  );
  // "Published" only when every relay took it: a relay that is down must not read as success.
  const events = report.events === 1 ? 'event' : 'events';
  const head = `Siegel: ${report.published} of ${report.events} ${events} published (${relays.join(', ')})`;
  if (report.waiting === 0) return head;
  const path = relative(cwd, report.outboxFile);
  const shown = path && !path.startsWith('..') && !isAbsolute(path) ? path : report.outboxFile;
  return `${head}; ${report.waiting} waiting in ${shown}`;
}
