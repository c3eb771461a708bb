// records/ owns a signed file record as the world sees it: its NIP-94 event (`file-event.ts`), its public
// URLs, its description for the API (`describe-record.ts`), and its verification (this file) with the
// checker every reading route reads records through (`checked-records.ts`).
// A stored record's verification: its event by the rule book's file rules (`judgeFileEvent`), its stored
// fields against that event, its stored file against the hash; and the record as its event states it.
import { computeEventId, jsEngine, loadSigningEngine, type SigningEngine } from '@siegel/core/crypto';
import {
  type EventChecks as CoreEventChecks,
  type FileJudgeInput,
  type Judgement,
  judgeFileEvent,
  type Problem,
  type Verdict,
} from '@siegel/core/rules';
import { FILE_FORMATS } from '@siegel/formats';
import type { NostrEvent } from 'nostr-tools/core';
import type { SignedFileRecord } from '../storage/record-store.js';
import type { StoredFileDigest } from '../storage/stored-file-hashes.js';
import { isoTime } from './describe-record.js';
import { FILE_EVENT_KIND, readFileEvent } from './file-event.js';
import { documentKey } from './public-urls.js';

/** The checks run on a stored event each time it is verified. */
export interface EventChecks {
  /** The event id is the SHA-256 of the event's serialization. */
  event_id: boolean;
  /** The Schnorr signature is valid for the id and the pubkey. */
  signature: boolean;
  /** The event's `x` tag is the file's hash. */
  hash_tag: boolean;
}

/** The outcome of {@link checkStoredEvent}: the checks, and why it failed (empty when it passed). */
export interface EventVerdict {
  verified: boolean;
  checks: EventChecks;
  reasons: string[];
}

/** The checks run on a stored record each time it is verified: its event's, and the record's own. */
export interface RecordChecks extends EventChecks {
  /** Every stored field of the record is what its signed event states (`created_at`: fits its time). */
  fields: boolean;
  /** The stored file is there and its bytes hash to the record's hash. */
  file: boolean;
}

/**
 * The outcome of {@link verifyRecord}: the checks, and what no longer matches (empty when it passed); and
 * the same decision in the rule book's vocabulary (`judgeFileEvent`): the verdict (`verified` is
 * `verdict === 'valid'`) and the coded problems (`file.*`, docs/verification.md).
 */
export interface RecordVerdict {
  verified: boolean;
  checks: RecordChecks;
  reasons: string[];
  verdict: Verdict;
  problems: Problem[];
}

/**
 * How long after its event was signed a record may have been written (seconds): the bunker signs first,
 * then the file and its event pages are stored, then the record. Generous: a slow bunker or disk is not a
 * forgery.
 */
export const RECORD_WRITE_WINDOW_SECONDS = 3600;
/** How far the record's time may lie before its event's (seconds): the clock may be set back in between. */
export const RECORD_CLOCK_SLACK_SECONDS = 600;

const MEMO_LIMIT = 10_000;

/** The event's checks and reasons of a judgement: the booleans and sentences the verify answers carry. */
function eventVerdictOf(judgement: Judgement, hash: string): EventVerdict {
  const has = (code: string) => judgement.problems.some((problem) => problem.code === code);
  // A stored event of the wrong shape (a mistyped field) is refused as altered, its id unchecked.
  const idOk = !has('file.malformed') && !has('file.event_id');
  const signatureOk = idOk && !has('file.signature');
  const hashTagOk = !has('file.hash');
  const reasons: string[] = [];
  if (!idOk) reasons.push('The event id does not match the event content (the stored event was altered).');
  if (!signatureOk) reasons.push('The Schnorr signature is not valid for this event and pubkey.');
  if (!hashTagOk) reasons.push(`The event's \`x\` tag is not the file hash \`${hash}\`.`);
  return {
    verified: reasons.length === 0,
    checks: { event_id: idOk, signature: signatureOk, hash_tag: hashTagOk },
    reasons,
  };
}

/**
 * Re-check a stored event against the file hash it claims, on every call, by the rule book's file rules
 * (`judgeFileEvent` of `@siegel/core/rules`): its shape, its id recomputed (SHA-256 of the NIP-01
 * serialization) and compared, its `x` tag compared with the hash, and its Schnorr signature verified
 * (remembered per (id, pubkey, sig), see {@link EventVerifier}). Its kind is the record's check
 * ({@link verifyRecord}).
 */
export function checkStoredEvent(event: NostrEvent, hash: string): EventVerdict {
  return processVerifier.checkStoredEvent(event, hash);
}

/** What every answer about a hash with no record here says. */
export const UNKNOWN_HASH_MESSAGE = 'No file with this SHA-256 hash was signed here.';

/**
 * The verdict on a hash with no record here, in the rule book's words: `not_found`, one `file.not_found`.
 *
 * @example
 * ```ts
 * judgeUnknownHash(hash).problems[0]?.code; // 'file.not_found'
 * ```
 */
export function judgeUnknownHash(hash: string): Pick<Judgement, 'verdict' | 'problems'> {
  const { verdict, problems } = judgeFileEvent({ hash, event: { missing: UNKNOWN_HASH_MESSAGE } });
  return { verdict, problems };
}

/** Options of {@link prepareEventChecks}. */
export interface PrepareEventChecksOptions {
  /** Called with the reason when the WebAssembly engine cannot be used (pure JS then). Default: nothing. */
  onFallback?: (reason: unknown) => void;
}

/** The one line a process prints when its verifier falls back to pure JavaScript (the server, `migrate`). */
export function fallbackNotice(reason: unknown): string {
  const why = reason instanceof Error ? reason.message : String(reason);
  return `WebAssembly Schnorr code unavailable (${why}); verifying with pure JavaScript`;
}

/**
 * Build at start what the first signings would otherwise build while they hold an upload in memory: core's
 * Schnorr engine (`loadSigningEngine()`, libsecp256k1 as WebAssembly, loaded and self-tested once per process;
 * the bunker client of `@siegel/core` checks its answers with the same one), and the precomputed tables of
 * the pure-JS verifier (several MB, made on first use). From then on {@link checkStoredEvent} verifies with
 * the loaded engine. A throwaway key signs one throwaway event, which the engine verifies; nothing is stored
 * or sent.
 *
 * @example
 * ```ts
 * await prepareEventChecks({ onFallback: (reason) => console.warn(reason) }); // in main.ts, before listening
 * ```
 * @throws {Error} when the loaded engine cannot verify what it signed.
 */
export async function prepareEventChecks(options: PrepareEventChecksOptions = {}): Promise<void> {
  await processVerifier.prepare(options);
}

/**
 * The record as its signed event states it: event id, pubkey, MIME type (and so file type and storage key,
 * `documents/{hash}.{extension}`), size, dimensions, authors, title (or, without one, the upload's name) and
 * description all come from the event (see {@link readFileEvent}); only the hash (the record's key), the
 * upload's name when the file has its own title, and the time the record was written come from the store.
 * This is what every answer about a record reports; {@link verifyRecord} says whether the store agrees.
 * Where the event states nothing (it is not a file event of this service), the stored value stands, and
 * {@link verifyRecord} reports the mismatch.
 */
export function bindRecord(stored: SignedFileRecord): SignedFileRecord {
  const { event } = stored;
  const statement = readFileEvent(event);
  const format = FILE_FORMATS.find((candidate) => candidate.mimeType === statement.mimeType);
  const dimensions = /^(\d{1,9})x(\d{1,9})$/.exec(statement.dim ?? '');
  const size = /^\d{1,15}$/.test(statement.size ?? '') ? Number(statement.size) : stored.sizeBytes;
  const name = statement.name;
  return {
    hash: stored.hash,
    eventId: typeof event.id === 'string' ? event.id : stored.eventId,
    pubkey: typeof event.pubkey === 'string' ? event.pubkey : stored.pubkey,
    fileType: format?.kind ?? stored.fileType,
    mimeType: format?.mimeType ?? stored.mimeType,
    sizeBytes: size,
    width: dimensions === null ? undefined : Number(dimensions[1]),
    height: dimensions === null ? undefined : Number(dimensions[2]),
    authors: statement.authors,
    title: name === undefined ? stored.title : stored.title === undefined ? undefined : name,
    description: statement.description,
    fileName: name === undefined || stored.title !== undefined ? stored.fileName : name,
    fileKey: format === undefined ? stored.fileKey : documentKey(stored.hash, format.extension),
    event,
    createdAt: stored.createdAt,
  };
}

/**
 * Verify a stored record: its event ({@link checkStoredEvent}: id, Schnorr signature, `x` tag), every
 * stored field against what the event states ({@link bindRecord}; `created_at`, which the event does not
 * state, must fall between {@link RECORD_CLOCK_SLACK_SECONDS} before the event's time and
 * {@link RECORD_WRITE_WINDOW_SECONDS} after it), and the stored file — `file` is the digest of the bytes
 * under `bound.fileKey`, `undefined` when there are none (`fileError`: why they could not be read) — against
 * the hash. Each mismatch is one reason, naming the column and quoting both values. The decision is the
 * rule book's (`judgeFileEvent`): `verdict` and the `file.*` `problems` beside the checks and reasons (a
 * wrong kind is `file.kind`, each differing column a `file.record`, other bytes `file.bytes`, none
 * `file.unreadable`).
 *
 * @example
 * ```ts
 * const bound = bindRecord(stored);
 * const { digest } = await hashes.hashOf(bound.fileKey);
 * verifyRecord(stored, bound, digest).reasons; // ['`authors` does not match the signed event: …']
 * verifyRecord(stored, bound, digest).problems[0]?.code; // 'file.record'
 * ```
 */
export function verifyRecord(
  stored: SignedFileRecord,
  bound: SignedFileRecord,
  file: StoredFileDigest | undefined,
  fileError?: string,
): RecordVerdict {
  return processVerifier.verifyRecord(stored, bound, file, fileError);
}

function verifyRecordWith(
  verifier: EventVerifier,
  stored: SignedFileRecord,
  bound: SignedFileRecord,
  file: StoredFileDigest | undefined,
  fileError: string | undefined,
): RecordVerdict {
  const kindReasons =
    stored.event.kind === FILE_EVENT_KIND
      ? []
      : [`The event is of kind ${show(stored.event.kind)}, not a file event (${FILE_EVENT_KIND}).`];
  const fieldReasons = compareFields(stored, bound);
  const unreadable =
    fileError !== undefined
      ? `The stored file \`${bound.fileKey}\` cannot be read: ${fileError}`
      : file === undefined
        ? `The stored file \`${bound.fileKey}\` is missing.`
        : undefined;
  const judgement = verifier.judge(stored.event, {
    hash: stored.hash,
    recordMismatches: fieldReasons,
    file: unreadable === undefined ? file : { unreadable },
  });
  const event = eventVerdictOf(judgement, stored.hash);
  const fileReasons =
    unreadable !== undefined
      ? [unreadable]
      : file !== undefined && file.sha256 !== stored.hash
        ? [
            `The stored file's bytes do not match the hash: their SHA-256 is \`${file.sha256}\` (${file.size} bytes).`,
          ]
        : [];
  const reasons = [...event.reasons, ...kindReasons, ...fieldReasons, ...fileReasons];
  return {
    verified: judgement.verdict === 'valid',
    checks: {
      ...event.checks,
      fields: kindReasons.length + fieldReasons.length === 0,
      file: fileReasons.length === 0,
    },
    reasons,
    verdict: judgement.verdict,
    problems: judgement.problems,
  };
}

/** The reasons why stored fields differ from what the event states (see {@link verifyRecord}). */
function compareFields(stored: SignedFileRecord, bound: SignedFileRecord): string[] {
  const reasons: string[] = [];
  const statement = readFileEvent(stored.event);
  const differs = (column: string, storedValue: unknown, signedValue: unknown, note = '') => {
    reasons.push(
      `\`${column}\` does not match the signed event: stored ${show(storedValue)}, signed ${show(signedValue)}${note}.`,
    );
  };
  if (stored.eventId !== stored.event.id) differs('event_id', stored.eventId, stored.event.id);
  if (stored.pubkey !== stored.event.pubkey) differs('pubkey', stored.pubkey, stored.event.pubkey);
  if (stored.mimeType !== statement.mimeType) differs('mime_type', stored.mimeType, statement.mimeType);
  const kind = FILE_FORMATS.find((format) => format.mimeType === statement.mimeType)?.kind;
  if (stored.fileType !== kind) differs('file_type', stored.fileType, kind);
  if (String(stored.sizeBytes) !== statement.size) differs('size_bytes', stored.sizeBytes, statement.size);
  if (stored.width !== bound.width) differs('width', stored.width, bound.width);
  if (stored.height !== bound.height) differs('height', stored.height, bound.height);
  if (!sameList(stored.authors, statement.authors)) {
    differs('authors', stored.authors.join(', '), statement.authors.join(', '));
  }
  if (statement.name === undefined) {
    reasons.push("The event's content does not name the file as `“{title}” by {authors}`.");
  } else if (stored.title !== undefined) {
    if (stored.title !== statement.name) differs('title', stored.title, statement.name);
  } else if (stored.fileName !== statement.name) {
    differs(
      'file_name',
      stored.fileName,
      statement.name,
      ' (with no stored `title`, the name stands for it)',
    );
  }
  if (stored.description !== statement.description) {
    differs('description', stored.description, statement.description);
  }
  if (stored.fileKey !== bound.fileKey) differs('file_key', stored.fileKey, bound.fileKey);
  const signedAt = stored.event.created_at;
  if (
    typeof signedAt === 'number' &&
    !(
      stored.createdAt >= signedAt - RECORD_CLOCK_SLACK_SECONDS &&
      stored.createdAt <= signedAt + RECORD_WRITE_WINDOW_SECONDS
    )
  ) {
    reasons.push(
      `\`created_at\` does not match the signed event: the record says it was written at ${show(isoTime(stored.createdAt))}, ` +
        `but its event was signed at ${show(isoTime(signedAt))}, and a record is written within ` +
        `${RECORD_WRITE_WINDOW_SECONDS / 60} minutes after.`,
    );
  }
  return reasons;
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((value, index) => value === b[index]);
}

/** A value for a reason: quoted in backticks (shortened past 100 characters), or `none`. */
function show(value: unknown): string {
  if (value === undefined || value === null) return 'none';
  const text = String(value);
  return `\`${text.length > 100 ? `${text.slice(0, 100)}…` : text}\``;
}

/**
 * The verification of stored events and records with a memo and a Schnorr engine of its own: `createApp`
 * builds one per app, so two apps in one process share nothing. The engine is the pure-JS one of
 * `@siegel/core/crypto` until {@link EventVerifier.prepare} has loaded the fastest available one
 * (WebAssembly), so that checks stay synchronous and work before (and in tests without) the start-up work.
 * A signature is a pure function of (id, pubkey, sig) and the rule book verifies it only once the id was
 * recomputed from the content and matched, so a verification that passed for the same triple is remembered
 * (at most 10 000, then forgotten at once); any other triple is verified.
 */
export class EventVerifier {
  readonly #verified = new Map<string, true>();
  #engine: SigningEngine = jsEngine;
  /** The id and signature checks `judgeFileEvent` runs here: core's id, and the engine's Schnorr verification. */
  readonly #checks: CoreEventChecks = {
    computeId: (event) => computeEventId(event),
    verifySignature: (event) => {
      const memoKey = `${event.id}:${event.pubkey}:${event.sig}`;
      if (this.#verified.has(memoKey)) return true;
      const ok = this.#engine.verifyEvent(event);
      if (ok) {
        if (this.#verified.size >= MEMO_LIMIT) this.#verified.clear();
        this.#verified.set(memoKey, true);
      }
      return ok;
    },
  };

  /** The file rules on a stored record's event (and whatever else `input` gives), with this verifier's checks. */
  judge(event: NostrEvent, input: Omit<FileJudgeInput, 'event' | 'checks'>): Judgement {
    return judgeFileEvent({ ...input, event: { found: event }, checks: this.#checks });
  }

  /** See {@link checkStoredEvent}. */
  checkStoredEvent(event: NostrEvent, hash: string): EventVerdict {
    return eventVerdictOf(this.judge(event, { hash }), hash);
  }

  /** See {@link verifyRecord}. */
  verifyRecord(
    stored: SignedFileRecord,
    bound: SignedFileRecord,
    file: StoredFileDigest | undefined,
    fileError?: string,
  ): RecordVerdict {
    return verifyRecordWith(this, stored, bound, file, fileError);
  }

  /** See {@link prepareEventChecks}: loads and self-tests the engine this verifier checks with. */
  async prepare(options: PrepareEventChecksOptions = {}): Promise<void> {
    const loaded = await loadSigningEngine({ onFallback: options.onFallback });
    const secretKey = loaded.generateSecretKey();
    const event = loaded.signEvent(
      { kind: 1063, created_at: 0, tags: [['x', '0'.repeat(64)]], content: '' },
      secretKey,
    );
    secretKey.fill(0);
    // The pure-JS verifier runs once too: the engine's self-test runs it only when WebAssembly loaded, and a
    // fallback engine is that verifier.
    if (!loaded.verifyEvent(event) || !jsEngine.verifyEvent(event))
      throw new Error('The Schnorr verifier does not work');
    this.#engine = loaded;
  }
}

/** The verifier of the functions below (the package's API outside an app); an app has its own. */
const processVerifier = new EventVerifier();
