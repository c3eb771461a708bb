import type { FileKind } from '@siegel/formats';
import type { NostrEvent } from 'nostr-tools/core';
import type { PendingDelivery } from './delivery-store.js';
import type { SignedFileRecord } from './record-store.js';
import type { UploadTokenRecord } from './upload-token-store.js';

// The rows of the record stores' tables as both databases return them (SQLite and PostgreSQL use the same
// column names; PostgreSQL answers its bigint columns as strings), and the one reading of each.

/** A `signed_files` row (a type, not an interface: node:sqlite takes it as named parameters). */
export type RecordRow = {
  hash: string;
  event_id: string;
  pubkey: string;
  file_type: string;
  mime_type: string;
  size_bytes: number | string;
  width: number | null;
  height: number | null;
  authors: string;
  title: string | null;
  description: string | null;
  file_name: string;
  file_key: string;
  event_json: string;
  created_at: number | string;
};

/** An `upload_tokens` row. */
export interface TokenRow {
  hash: string;
  origin: string;
  uses: number;
  used: number;
  expires_at: number | string;
  created_at: number | string;
}

/** A due `relay_deliveries` row joined to its record's event. */
export interface DueRow {
  event_id: string;
  relay: string;
  attempts: number | string;
  event_json: string;
}

/** The record a `signed_files` row holds. */
export function toRecord(row: RecordRow): SignedFileRecord {
  return {
    hash: row.hash,
    eventId: row.event_id,
    pubkey: row.pubkey,
    fileType: row.file_type as FileKind,
    mimeType: row.mime_type,
    sizeBytes: Number(row.size_bytes),
    width: row.width ?? undefined,
    height: row.height ?? undefined,
    authors: readAuthors(row.authors),
    title: row.title ?? undefined,
    description: row.description ?? undefined,
    fileName: row.file_name,
    fileKey: row.file_key,
    event: readEvent(row.event_json),
    createdAt: Number(row.created_at),
  };
}

/** The `signed_files` row of a record (what {@link toRecord} reads back), with numbers as numbers. */
export function toRow(record: SignedFileRecord): RecordRow & { size_bytes: number; created_at: number } {
  return {
    hash: record.hash,
    event_id: record.eventId,
    pubkey: record.pubkey,
    file_type: record.fileType,
    mime_type: record.mimeType,
    size_bytes: record.sizeBytes,
    width: record.width ?? null,
    height: record.height ?? null,
    authors: JSON.stringify(record.authors),
    title: record.title ?? null,
    description: record.description ?? null,
    file_name: record.fileName,
    file_key: record.fileKey,
    event_json: JSON.stringify(record.event),
    created_at: record.createdAt,
  };
}

/** The token an `upload_tokens` row holds. */
export function toToken(row: TokenRow): UploadTokenRecord {
  return {
    hash: row.hash,
    origin: row.origin,
    uses: row.uses,
    used: row.used,
    expiresAt: Number(row.expires_at),
    createdAt: Number(row.created_at),
  };
}

/** The due rows as deliveries; one whose `event_json` was altered cannot be sent (the record check reports it). */
export function parseDueRows(rows: readonly DueRow[]): PendingDelivery[] {
  const pending: PendingDelivery[] = [];
  for (const row of rows) {
    try {
      const event = JSON.parse(row.event_json) as NostrEvent;
      pending.push({ eventId: row.event_id, relay: row.relay, attempts: Number(row.attempts), event });
    } catch {}
  }
  return pending;
}

/**
 * The `authors` column: a JSON array of strings. Anything else (the column was altered) is kept as one
 * author, its text, so that the verdict quotes it instead of failing to read the record.
 */
function readAuthors(text: string): string[] {
  try {
    const value: unknown = JSON.parse(text);
    if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return value;
  } catch {}
  return [text];
}

/**
 * The `event_json` column. Text that is not a JSON object (the column was altered) reads as an event with
 * nothing in it, which fails every check of the verdict instead of failing to read the record.
 */
function readEvent(text: string): NostrEvent {
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as NostrEvent;
  } catch {}
  return {} as NostrEvent;
}
