// storage/ owns what the service keeps: the file storage (filesystem, S3), the record store with its hash
// claims, upload tokens and relay deliveries (SQLite, PostgreSQL with its change feed and migrations), the
// stored files' hash checks, and opening the stores a configuration names (`open-stores.ts`).
import type { FileKind } from '@siegel/formats';
import type { NostrEvent } from 'nostr-tools/core';
import type { DeliveryStore } from './delivery-store.js';
import type { UploadTokenStore } from './upload-token-store.js';

/** One signed file as the database keeps it. */
export interface SignedFileRecord {
  /** SHA-256 of the file, lowercase hex (primary key). */
  hash: string;
  eventId: string;
  pubkey: string;
  fileType: FileKind;
  mimeType: string;
  sizeBytes: number;
  width: number | undefined;
  height: number | undefined;
  authors: string[];
  title: string | undefined;
  description: string | undefined;
  /** The name the file was uploaded under (shown, never used as a path). */
  fileName: string;
  /** Storage key of the file, e.g. `documents/{hash}.png`. */
  fileKey: string;
  /** The signed NIP-94 event exactly as the bunker returned it. */
  event: NostrEvent;
  /** When the record was written, Unix seconds. */
  createdAt: number;
}

/** Thrown by {@link RecordStore.insert} when a record for the hash already exists. */
export class DuplicateRecordError extends Error {
  constructor(readonly hash: string) {
    super(`A record for \`${hash}\` already exists`);
    this.name = 'DuplicateRecordError';
  }
}

/** What {@link RecordStore.insert} writes with a record. */
export interface RecordOutbox {
  /** Relays the event goes to (`SIEGEL_RELAYS`): one outbox row each, in the record's transaction. */
  deliverTo?: readonly string[];
  /** When the deliveries are due, Unix ms (default now). */
  now?: number;
  /**
   * The claim on the record's hash ({@link HashClaims.claimHash}) this write finishes: it is released in the
   * same transaction, and the write fails with `ClaimLostError` (nothing written) when it is no longer held
   * (it expired and another writer or the sweep took it over; expired but not taken over still counts).
   */
  claim?: string;
}

/**
 * Who may write a hash's files and record right now: the database decides, for every process and instance
 * on it. A signer claims the hash before it stores anything and releases the claim with the record's
 * transaction (or after cleaning up); the orphan sweep claims a hash before it deletes its files, so it never
 * deletes what an upload in flight has just written. A claim whose holder died ends with its lease.
 */
export interface HashClaims {
  /**
   * Take `hash` for `leaseMs`: resolves with a claim token, or `undefined` while another live claim holds it.
   * An expired claim is taken over. The lease is counted on the store's clock (PostgreSQL: `now()`).
   */
  claimHash(hash: string, leaseMs: number): Promise<string | undefined>;
  /** Extend a held claim to `leaseMs` from now; `false` when it is no longer held (expired and taken over). */
  renewClaim(hash: string, claim: string, leaseMs: number): Promise<boolean>;
  /** Give the claim up (nothing happens when it is no longer held). */
  releaseClaim(hash: string, claim: string): Promise<void>;
  /**
   * How long the live claim on `hash` lasts unless renewed, in ms on the store's clock; `undefined` when none
   * holds it (never taken, released, or ended). The orphan sweep looks again once the claim that kept it from
   * a hash's files has ended.
   */
  claimEndsIn(hash: string): Promise<number | undefined>;
}

/**
 * The records of signed files and the relay outbox ({@link DeliveryStore}), in one database so that a record
 * and its outbox rows commit together. The hash claims ({@link HashClaims}) and the upload tokens
 * ({@link UploadTokenStore}) are interfaces of their own; one database object may implement all three
 * ({@link RecordDatabase}).
 */
export interface RecordStore {
  /** The relay outbox in the same database. */
  readonly deliveries: DeliveryStore;
  findByHash(hash: string): Promise<SignedFileRecord | undefined>;
  findByEventId(eventId: string): Promise<SignedFileRecord | undefined>;
  /**
   * Write `record`, and in the same transaction one relay outbox row per relay in `deliverTo` (due at
   * `now`, default the clock): a committed record is never without the deliveries it is owed.
   *
   * @throws {DuplicateRecordError} when `record.hash` is already recorded (nothing is written).
   * @throws {ClaimLostError} when `outbox.claim` is given and no longer held (nothing is written).
   */
  insert(record: SignedFileRecord, outbox?: RecordOutbox): Promise<void>;
  /** Which of `hashes` have a record (one query for many: the orphan sweep asks for a page of files at once). */
  findHashes(hashes: readonly string[]): Promise<Set<string>>;
  /** Up to `limit` records in hash order, those after `after` (paging through the whole store). */
  listRecords(after: string | undefined, limit: number): Promise<SignedFileRecord[]>;
  /**
   * A cheap, synchronous stamp of the whole store: it differs whenever any record may have changed since the
   * last read, through this store or from anywhere else (another connection, process or instance). The
   * verify API reuses an answer only while the stamp is the one it was built under. `undefined` (or no
   * method): the store cannot tell now, and every verify call reads and checks the record.
   */
  readChangeStamp?(): string | undefined;
  /**
   * `true` when the stamp learns of other instances' writes a moment after they commit (PostgreSQL: by a
   * notification), not on the read itself (SQLite's `data_version`). The verify API then never reuses a
   * "not signed here" answer: a file signed on another instance must verify here at once.
   */
  readonly changeStampLags?: boolean;
  close(): Promise<void>;
}

/**
 * One database that keeps the records, the hash claims and the upload tokens: the default is SQLite through
 * `node:sqlite` (`SqliteRecordStore`); `PostgresRecordStore` serves several instances on one PostgreSQL.
 * `createApp` takes the three as separate dependencies; pass the one object three times.
 */
export interface RecordDatabase extends RecordStore, HashClaims, UploadTokenStore {}
