import { backoffDelay } from '@siegel/core';
import type { NostrEvent } from 'nostr-tools/core';

/** First wait before an event is offered to a relay again, in ms; doubled per failed attempt. */
export const FIRST_RETRY_MS = 30_000;
/** Longest wait between two attempts, in ms. */
export const LONGEST_RETRY_MS = 60 * 60_000;

/** The wait after `attempts` failed attempts: `first` (30 s), twice that, four times, … at most 1 h. */
export function retryDelayMs(attempts: number, first = FIRST_RETRY_MS): number {
  return backoffDelay(attempts - 1, { first, max: LONGEST_RETRY_MS });
}

/** An event that still waits for one relay. */
export interface PendingDelivery {
  eventId: string;
  relay: string;
  /** Failed attempts so far. */
  attempts: number;
  /** The signed event, as the record stores it. */
  event: NostrEvent;
}

/**
 * The durable relay outbox of the file server: one row per signed event and relay — which relays took each
 * event (`OK` true), which still need it, how often it failed there and when to try again. The rows of a new
 * event are written in the transaction that writes its record (`RecordStore.insert` with `deliverTo`), so
 * the outbox lives in the record store's database; the publisher loop (`RelayPublishing`) of every instance
 * claims what is due from here. Nothing is lost when a relay is down, the server restarts or an instance dies.
 *
 * Implementations: SQLite (`SqliteDeliveryStore`, the default) and PostgreSQL (`PostgresStores`).
 */
export interface DeliveryStore {
  /**
   * Take the due deliveries (at most `limit`, oldest first) for sending: they are read and leased until
   * `now + leaseMs` atomically, so no other pass, process or instance takes them meanwhile (SQLite: one write
   * transaction; PostgreSQL: `FOR UPDATE SKIP LOCKED`). Mark each delivered or failed once its relay
   * answered; one whose sender died is due again when the lease ends.
   */
  claimDue(now: number, leaseMs: number, limit?: number): Promise<PendingDelivery[]>;
  /** `relay` answered `OK` true for `eventId`. */
  markDelivered(eventId: string, relay: string, now: number): Promise<void>;
  /** `relay` did not take `eventId` (refused, unreachable, no answer): one more attempt, next try at `nextTryAt`. */
  markFailed(eventId: string, relay: string, reason: string, nextTryAt: number): Promise<void>;
  /** The relays that took `eventId`, sorted. */
  deliveredTo(eventId: string): Promise<string[]>;
  /** How many deliveries wait and how many are done (for the log and tests). */
  count(): Promise<{ pending: number; delivered: number }>;
}
