// The JSON a Siegel server answers, typed as docs/server-api.md describes it (field names as the server
// writes them). The client adds `alreadySigned` to sign results and `found` to verify results.

/** The public URLs of a signed file. */
export interface FileUrls {
  /** The file: `{cdn_url}/documents/{hash}.{ext}`. */
  file: string;
  /** The event page for people: `{cdn_url}/events/{hash}/index.html`. */
  static_page: string;
  /** The live verify page of the event: `{base_url}/verify/{event id}`. */
  event_page: string;
  /** The verify page for people: `{base_url}/verify?hash={hash}`. */
  verify: string;
  /** The verify API: `{base_url}/api/verify?hash={hash}`. */
  verify_api: string;
  /** The record as JSON: `{cdn_url}/events/{hash}/index.json`. */
  event_json: string;
  /** The file by hash, as Blossom serves it: `{cdn_url}/{hash}`. */
  blossom: string;
}

/** A signed Nostr event (NIP-94, kind 1063). */
export interface SignedEvent {
  id: string;
  pubkey: string;
  created_at: number;
  kind: number;
  tags: string[][];
  content: string;
  sig: string;
}

/** What a file says about itself, as signed. */
export interface FileMetadata {
  /** The authors joined with `, `. */
  author: string;
  authors: string[];
  title: string | null;
  description?: string;
}

/** The record of a signed file (`GET /events/{hash}/index.json`, and the shared part of every answer). */
export interface FileRecord {
  hash: string;
  file_type: 'image' | 'document' | 'text';
  mime_type: string;
  size_bytes: number;
  /** Images only. */
  dimensions?: { width: number; height: number };
  metadata: FileMetadata;
  signer: { pubkey: string; npub: string };
  /** ISO 8601. */
  signed_at: string;
  urls: FileUrls;
  event: SignedEvent;
}

/** `sign` of a file signed now: the server's 200 answer. */
export interface SignedFile extends FileRecord {
  alreadySigned: false;
  success: true;
  /** `author_source` names the field the author was read from (`xmp:dc:creator`, …). */
  metadata: FileMetadata & { author_source?: string };
  /** The relays that confirmed the event within the server's short wait (`[]` when none are configured). */
  published_to: string[];
}

/**
 * `sign` of a file this server had signed before (its `ALREADY_SIGNED` answer): the existing record, as
 * `GET /events/{hash}/index.json` serves it, with the server's message.
 */
export interface AlreadySignedFile extends FileRecord {
  alreadySigned: true;
  /** The server's words: ``This file was already signed (event `…`)``. */
  message: string;
}

/** What `sign` resolves with: signed now, or signed before (nothing new is signed then). */
export type SignResult = SignedFile | AlreadySignedFile;

/** `POST /api/inspect`: what signing would read from a file, without signing or storing it. */
export interface InspectResult {
  success: true;
  file_name: string;
  hash: string;
  file_type: 'image' | 'document' | 'text';
  mime_type: string;
  size_bytes: number;
  dimensions?: { width: number; height: number };
  metadata: FileMetadata & { author_source?: string };
  /** Whether `sign` would sign it now: it names an author and is not signed yet. */
  signable: boolean;
  /** `AUTHOR_REQUIRED` when the file names no real author. */
  error?: string;
  message?: string;
  already_signed: boolean;
  /** When it is signed already. */
  urls?: FileUrls;
}

/** The checks the verify API runs on each call. */
export interface VerifyChecks {
  event_id: boolean;
  signature: boolean;
  hash_tag: boolean;
  fields: boolean;
  file: boolean;
}

/**
 * The verdict on a file, in the words of Siegel's rule book (`@siegel/core/rules`, docs/verification.md):
 * `valid` (`verified`), `invalid` (something was altered), `not_found` (an outage: no record for the hash,
 * or its stored bytes could not be read).
 */
export type FileVerdict = 'valid' | 'invalid' | 'not_found';

/**
 * The stable problem codes of a file's verdict (docs/verification.md, "Problem codes"): the event's shape
 * (`file.malformed`), id (`file.event_id`), signature (`file.signature`), kind (`file.kind`), `x` tag
 * (`file.hash`: another file's event), a stored field against the event (`file.record`, one per field), the
 * stored bytes (`file.bytes`, `file.unreadable`), and no record at all (`file.not_found`).
 */
export type FileProblemCode =
  | 'file.not_found'
  | 'file.malformed'
  | 'file.event_id'
  | 'file.signature'
  | 'file.kind'
  | 'file.hash'
  | 'file.record'
  | 'file.bytes'
  | 'file.unreadable';

/** One finding of a file's verdict: its code, its severity, and a sentence with the details. */
export interface FileProblem {
  code: FileProblemCode;
  severity: 'error' | 'warning';
  message: string;
}

/** `GET /api/verify?hash=` of a hash signed here (200): the record, re-checked now. */
export interface VerifiedRecord extends FileRecord {
  found: true;
  /** Every check passed; `reasons` says what failed otherwise. */
  verified: boolean;
  event: SignedEvent & { npub: string };
  published_to: string[];
  checks: VerifyChecks;
  message: string;
  reasons: string[];
  /** The same decision as `verified`, in the rule book's words: `valid` exactly when `verified`. */
  verdict: FileVerdict;
  /** What failed, coded (empty when `verified`); `reasons` says the same in sentences. */
  problems: FileProblem[];
}

/** `GET /api/verify?hash=` of a hash not signed here (404). */
export interface UnknownHash {
  found: false;
  verified: false;
  hash: string;
  message: string;
  /** Where to sign it: `{base_url}/tools/sign`. */
  sign_url: string;
  verdict: 'not_found';
  /** One `file.not_found`. */
  problems: FileProblem[];
}

/** What `verify` resolves with. */
export type VerifyResult = VerifiedRecord | UnknownHash;
