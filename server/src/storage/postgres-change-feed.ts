import { backoffDelay } from '@siegel/core';
import postgres, { type Options, type Sql } from 'postgres';
import { CHANGES_CHANNEL } from './postgres-migrations.js';
import { StoreUnavailableError } from './store-errors.js';

/** Epochs are unique in the process, so no two feeds (or two listens of one feed) share a stamp. */
let lastEpoch = 0;

/**
 * How often the feed's connection is asked `SELECT 1`, and how long without an answer makes the stamp
 * `undefined` (ms). A connection can die without closing (a network cut keeps the socket open until TCP
 * gives up, minutes later), and notifications then stop without a word: an answer proves that every
 * notification committed before the question has arrived (PostgreSQL sends them before it answers).
 */
export const FEED_HEARTBEAT_MS = 1000;
export const FEED_SILENCE_MS = 3000;

/** `application_name` of the feed's connection. */
export const FEED_APPLICATION_NAME = 'siegel change feed';

/** First wait before listening again after the connection was lost, in ms; doubled up to 5 s. */
const FIRST_RELISTEN_MS = 250;
const LONGEST_RELISTEN_MS = 5_000;

/**
 * The change stamp of a PostgreSQL record store: one dedicated connection LISTENs on
 * {@link CHANGES_CHANNEL}, which the tables' triggers notify on every statement that may change a verify
 * answer. The stamp is `{epoch}:{counter}`: the counter counts notifications and the store's own writes;
 * the epoch is new on every (re)listen, since notifications sent while the connection was down are lost.
 * While it is down, or has not answered a heartbeat for {@link FEED_SILENCE_MS}, the stamp is `undefined`,
 * and callers read the record every time; an answer after such a silence starts a new epoch. A heartbeat or
 * a `LISTEN` unanswered for the store's bound (`DATABASE_TIMEOUT_MS`) closes the connection and listens on a
 * new one: a frozen server or a network cut would keep it open and silent for as long as they last.
 *
 * Why its own connection instead of the driver's `sql.listen`: `sql.listen` reconnects, but does not tell
 * when its connection is lost, and the stamp must be `undefined` from that moment on. This feed uses the
 * driver's `onclose` (documented) and `onnotify` (the hook `sql.listen` itself is built on, in `postgres`
 * 3.4) on a one-connection client, and listens again with its own backoff until the database is back.
 */
export class PostgresChangeFeed {
  private sql: Sql;
  private epoch: number | undefined;
  private counter = 0;
  private closing = false;
  private relistening: Promise<void> | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private readonly heartbeat: NodeJS.Timeout;
  /** When the last answered heartbeat was sent (ms); a silence past FEED_SILENCE_MS makes the stamp stale. */
  private answeredAt = Date.now();
  private silent = false;
  /** When the heartbeat on the wire was sent (ms), or `undefined` when none is. */
  private beatSentAt: number | undefined;

  /**
   * Listen with the client options of the store (`url`, timeouts); resolves once listening. A heartbeat
   * without an answer for `timeoutMs` (the store's bound) abandons the connection for a new one: a frozen
   * server or a network cut leaves it open and silent for as long as they last.
   */
  static async start(
    url: string,
    options: Options<Record<string, never>>,
    timeoutMs: number,
  ): Promise<PostgresChangeFeed> {
    const feed = new PostgresChangeFeed(url, options, timeoutMs);
    try {
      await feed.listen();
    } catch (error) {
      await feed.close();
      throw error;
    }
    return feed;
  }

  private constructor(
    private readonly url: string,
    private readonly options: Options<Record<string, never>>,
    private readonly timeoutMs: number,
  ) {
    this.sql = this.client();
    this.heartbeat = setInterval(() => this.beat(), FEED_HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  /** The feed's one-connection client; only the current one's closing and notifications count. */
  private client(): Sql {
    const sql: Sql = postgres(this.url, {
      ...this.options,
      max: 1,
      idle_timeout: 0,
      max_lifetime: null,
      fetch_types: false,
      // Named, so that an operator tells it in pg_stat_activity (and the tests find its server process).
      connection: { application_name: FEED_APPLICATION_NAME },
      onclose: () => {
        if (sql === this.sql) this.lost();
      },
      onnotify: () => this.bump(),
    } as Options<Record<string, never>>);
    return sql;
  }

  /**
   * Ask the connection `SELECT 1` (one at a time); an answer after a silence starts a new epoch. One left
   * unanswered past `timeoutMs` abandons the connection: a new one listens.
   */
  private beat(): void {
    if (this.beatSentAt !== undefined) {
      if (Date.now() - this.beatSentAt > this.timeoutMs) {
        this.replaceClient();
        this.lost();
      }
      return;
    }
    if (this.epoch === undefined) return;
    const sent = Date.now();
    const sql = this.sql;
    this.beatSentAt = sent;
    sql`SELECT 1`.then(
      () => {
        if (sql !== this.sql) return;
        this.beatSentAt = undefined;
        if (this.silent && this.epoch !== undefined) {
          lastEpoch += 1;
          this.epoch = lastEpoch;
        }
        this.silent = false;
        this.answeredAt = sent;
      },
      () => {
        // A closed connection: onclose listens again.
        if (sql === this.sql) this.beatSentAt = undefined;
      },
    );
  }

  /** Close the silent connection (what waits on it fails now) for a new one. */
  private replaceClient(): void {
    const silent = this.sql;
    this.sql = this.client();
    this.beatSentAt = undefined;
    silent.end({ timeout: 0 }).catch(() => undefined);
  }

  /** `{epoch}:{counter}`, or `undefined` while not listening. */
  stamp(): string | undefined {
    if (this.epoch === undefined) return undefined;
    if (this.silent || Date.now() - this.answeredAt > FEED_SILENCE_MS) {
      this.silent = true;
      return undefined;
    }
    return `${this.epoch}:${this.counter}`;
  }

  /** Count a change (a notification, or a write of this store right after it committed). */
  bump(): void {
    this.counter += 1;
  }

  /** Stop listening and end the connection. */
  async close(): Promise<void> {
    this.closing = true;
    this.epoch = undefined;
    clearTimeout(this.retryTimer);
    clearInterval(this.heartbeat);
    await this.sql.end({ timeout: 1 });
  }

  /** `LISTEN` on the current connection; one without an answer within `timeoutMs` is replaced, and fails. */
  private async listen(): Promise<void> {
    const sql = this.sql;
    let timer: NodeJS.Timeout | undefined;
    const silence = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        if (sql === this.sql) this.replaceClient();
        const where = `${sql.options.host[0]}:${sql.options.port[0]}`;
        reject(
          new StoreUnavailableError(`PostgreSQL at ${where} did not answer within ${this.timeoutMs} ms`),
        );
      }, this.timeoutMs);
    });
    try {
      await Promise.race([sql.unsafe(`LISTEN ${CHANGES_CHANNEL}`), silence]);
    } finally {
      clearTimeout(timer);
    }
    if (this.closing) return;
    lastEpoch += 1;
    this.epoch = lastEpoch;
    this.silent = false;
    this.answeredAt = Date.now();
  }

  private lost(): void {
    if (this.closing) return;
    this.epoch = undefined;
    this.relistening ??= this.relisten().finally(() => {
      this.relistening = undefined;
    });
  }

  private async relisten(): Promise<void> {
    for (let attempt = 0; !this.closing; attempt++) {
      try {
        await this.listen();
        return;
      } catch {
        // Down still: the connection's close calls lost() again, which this loop already serves.
        await new Promise((resolve) => {
          const wait = backoffDelay(attempt, { first: FIRST_RELISTEN_MS, max: LONGEST_RELISTEN_MS });
          this.retryTimer = setTimeout(resolve, wait);
          this.retryTimer.unref();
        });
      }
    }
  }
}
