import postgres, { type Options, type Sql } from 'postgres';
import { CHANGES_CHANNEL } from './postgres-migrations.js';

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
 * and callers read the record every time; an answer after such a silence starts a new epoch.
 *
 * Why its own connection instead of the driver's `sql.listen`: `sql.listen` reconnects, but does not tell
 * when its connection is lost, and the stamp must be `undefined` from that moment on. This feed uses the
 * driver's `onclose` (documented) and `onnotify` (the hook `sql.listen` itself is built on, in `postgres`
 * 3.4) on a one-connection client, and listens again with its own backoff until the database is back.
 */
export class PostgresChangeFeed {
  private readonly sql: Sql;
  private epoch: number | undefined;
  private counter = 0;
  private closing = false;
  private relistening: Promise<void> | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private readonly heartbeat: NodeJS.Timeout;
  /** When the last answered heartbeat was sent (ms); a silence past FEED_SILENCE_MS makes the stamp stale. */
  private answeredAt = Date.now();
  private silent = false;
  private beating = false;

  /** Listen with the client options of the store (`url`, timeouts); resolves once listening. */
  static async start(url: string, options: Options<Record<string, never>>): Promise<PostgresChangeFeed> {
    const feed = new PostgresChangeFeed(url, options);
    try {
      await feed.listen();
    } catch (error) {
      await feed.close();
      throw error;
    }
    return feed;
  }

  private constructor(url: string, options: Options<Record<string, never>>) {
    this.sql = postgres(url, {
      ...options,
      max: 1,
      idle_timeout: 0,
      max_lifetime: null,
      fetch_types: false,
      // Named, so that an operator tells it in pg_stat_activity (and the tests find its server process).
      connection: { application_name: FEED_APPLICATION_NAME },
      onclose: () => this.lost(),
      onnotify: () => this.bump(),
    } as Options<Record<string, never>>);
    this.heartbeat = setInterval(() => this.beat(), FEED_HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  /** Ask the connection `SELECT 1` (one at a time); an answer after a silence starts a new epoch. */
  private beat(): void {
    if (this.beating || this.epoch === undefined) return;
    this.beating = true;
    const sent = Date.now();
    this.sql`SELECT 1`.then(
      () => {
        this.beating = false;
        if (this.silent && this.epoch !== undefined) {
          lastEpoch += 1;
          this.epoch = lastEpoch;
        }
        this.silent = false;
        this.answeredAt = sent;
      },
      () => {
        this.beating = false; // a closed connection: onclose listens again
      },
    );
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

  private async listen(): Promise<void> {
    await this.sql.unsafe(`LISTEN ${CHANGES_CHANNEL}`);
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
    let wait = FIRST_RELISTEN_MS;
    while (!this.closing) {
      try {
        await this.listen();
        return;
      } catch {
        // Down still: the connection's close calls lost() again, which this loop already serves.
        await new Promise((resolve) => {
          this.retryTimer = setTimeout(resolve, wait);
          this.retryTimer.unref();
        });
        wait = Math.min(wait * 2, LONGEST_RELISTEN_MS);
      }
    }
  }
}
