// signing/ owns signing a file: checks, the NIP-94 event through the bunker, storing file, event page and
// record (`FileSigner`), sweeping files a crash left without a record (`orphan-sweeper.ts`), and minting and
// checking upload tokens (`upload-tokens.ts`).
import { checkSignedEvent, type Signer } from '@siegel/core';
import { loadSigningEngine } from '@siegel/core/crypto';
import type { NostrEvent } from 'nostr-tools/core';
import { analyzeFile, type FileAnalysis } from '../metadata/analyze-file.js';
import { describeRecord } from '../records/describe-record.js';
import { createFileEvent } from '../records/file-event.js';
import { documentKey, eventPageKey, fileUrls } from '../records/public-urls.js';
import { bindRecord } from '../records/verify-record.js';
import type { FileStorage } from '../storage/file-storage.js';
import {
  DuplicateRecordError,
  type HashClaims,
  type RecordStore,
  type SignedFileRecord,
} from '../storage/record-store.js';
import { ClaimLostError, StoreUnavailableError } from '../storage/store-errors.js';
import { pageText, renderEventPage } from '../web/event-page.js';
import { signWithBunker } from './bunker-errors.js';
import { SigningError } from './signing-error.js';

/** What {@link FileSigner} needs. */
export interface FileSignerOptions {
  signer: Signer;
  storage: FileStorage;
  records: RecordStore;
  /** Who may write a hash right now (often the same database object as `records`). */
  claims: HashClaims;
  /** Public address of the service, no trailing slash. */
  baseUrl: string;
  /** Where files and event pages are served from, no trailing slash. */
  cdnUrl: string;
  /**
   * Relays every new event is owed to (`SIEGEL_RELAYS`): their outbox rows are written with the record, in
   * one transaction; the publisher loop sends them. Default none.
   */
  deliverTo?: readonly string[];
  /**
   * How long a claim on a hash lasts without renewal, in ms (`CLAIM_LEASE_MS`, default 60 000): the signer
   * renews it every third of that while it works; a claim whose holder died ends this long after its last
   * renewal, and then another upload of the file, or the orphan sweep, may take the hash over.
   */
  claimLeaseMs?: number;
}

/** Default of {@link FileSignerOptions.claimLeaseMs}. */
export const CLAIM_LEASE_MS = 60_000;

/** What one orphan sweep did ({@link FileSigner.removeOrphans}). */
export interface OrphanSweep {
  /** The keys it deleted. */
  removed: string[];
  /**
   * Hashes whose files have no record but whose claim another holds — an upload in flight, or one whose
   * process died before its lease ended — with how long that claim lasts unless renewed, in ms.
   */
  held: { hash: string; endsInMs: number }[];
}

/** Stored keys the orphan sweep looks up in one query. */
const SWEEP_PAGE = 500;

/** How often an upload waiting for another's claim on the same hash asks again, in ms. */
const CLAIM_POLL_MS = 100;

/**
 * Signs uploads: analyzes the file, claims its hash in the record store, has the bunker sign its NIP-94
 * event, stores file and event pages, then writes the record (with the relay outbox rows of its event, and
 * the claim's release, in one transaction; nothing here waits for a relay). Order and clean-up keep the
 * invariant: never a record without its file, never a file left without its record (a crash between the two
 * leaves files that {@link FileSigner.removeOrphans} deletes once the claim has ended).
 *
 * Uniqueness is the database's: the claim ({@link HashClaims.claimHash}) admits one writer of a hash at a
 * time across every process and instance sharing the store, so parallel uploads of the same bytes anywhere
 * give one record and `ALREADY_SIGNED` for the rest. Uploads of the same bytes in this process also queue
 * behind each other, so only one of them at a time asks the store.
 */
export class FileSigner {
  private readonly inFlight = new Map<string, Promise<unknown>>();
  /**
   * Told the hash of a write whose record may or may not have committed (the store went away during its
   * transaction); its files are left in place. The server has its orphan sweeper look at the hash once its
   * claim has ended (`CLAIM_LEASE_MS`); without it, the next full sweep does.
   */
  onUnsettled?: (hash: string) => void;

  constructor(readonly options: FileSignerOptions) {}

  /**
   * Sign and publish `bytes`. `analysis` is what the service's analyzer (`createFileAnalyzer`, off the event
   * loop) read from these very bytes; without it they are analyzed here, on the calling thread. `uploader`
   * (hex pubkey, Blossom uploads with Nostr auth) is named in the event's `p` tag.
   *
   * @throws {SigningError} `author_required`, `already_signed` (with `existing_event`), `event_refused`,
   *   `bunker_unavailable` (with the bunker's German message), `bunker_mismatch`.
   */
  async sign(
    bytes: Uint8Array,
    fileName: string,
    analysis = analyzeFile(bytes, fileName),
    uploader?: string,
  ): Promise<SignedFileRecord> {
    requireAuthor(analysis, fileName);
    return this.serialize(analysis.hash, () => this.signAnalyzed(bytes, fileName, analysis, uploader));
  }

  private async serialize<T>(hash: string, run: () => Promise<T>): Promise<T> {
    const previous = this.inFlight.get(hash) ?? Promise.resolve();
    const current = previous.then(run, run);
    const settled = current.catch(() => undefined);
    this.inFlight.set(hash, settled);
    try {
      return await current;
    } finally {
      if (this.inFlight.get(hash) === settled) this.inFlight.delete(hash);
    }
  }

  private get leaseMs(): number {
    return this.options.claimLeaseMs ?? CLAIM_LEASE_MS;
  }

  /**
   * Claim `hash` for writing: waits while another writer (on any instance) holds it — until it commits (then
   * `ALREADY_SIGNED`), gives up, or its claim ends — and rejects when the file is signed meanwhile.
   */
  private async claim(hash: string): Promise<string> {
    const { claims } = this.options;
    const deadline = Date.now() + this.leaseMs + CLAIM_POLL_MS * 10;
    for (;;) {
      await this.rejectIfSigned(hash);
      const claim = await claims.claimHash(hash, this.leaseMs);
      if (claim !== undefined) {
        // A writer that held the hash before may have committed just now: its record and the claim's end
        // are one transaction, so the record is visible once the claim could be taken.
        try {
          await this.rejectIfSigned(hash);
        } catch (error) {
          await claims.releaseClaim(hash, claim);
          throw error;
        }
        return claim;
      }
      if (Date.now() > deadline) {
        throw new StoreUnavailableError(`Another upload of this file has held it for too long`, 1);
      }
      await new Promise((resolve) => setTimeout(resolve, CLAIM_POLL_MS));
    }
  }

  private async signAnalyzed(
    bytes: Uint8Array,
    fileName: string,
    analysis: FileAnalysis,
    uploader: string | undefined,
  ): Promise<SignedFileRecord> {
    const { claims } = this.options;
    const claim = await this.claim(analysis.hash);
    // Renewed while this upload works (the bunker may be slow); a dead process's claim ends with its lease.
    const renewal = setInterval(
      () => void claims.renewClaim(analysis.hash, claim, this.leaseMs).catch(() => undefined),
      Math.max(1, Math.floor(this.leaseMs / 3)),
    );
    renewal.unref();
    let lost = false;
    try {
      return await this.signClaimed(bytes, fileName, analysis, uploader, claim);
    } catch (error) {
      lost = error instanceof ClaimLostError;
      if (lost) {
        throw new StoreUnavailableError(
          'The claim on this file ended while it was being signed (the database was unreachable too long)',
          1,
          { cause: error },
        );
      }
      throw error;
    } finally {
      clearInterval(renewal);
      // Released with the record's transaction on success; after a failure (files cleaned up) here. A lost
      // claim is another writer's now.
      if (!lost) await claims.releaseClaim(analysis.hash, claim).catch(() => undefined);
    }
  }

  private async signClaimed(
    bytes: Uint8Array,
    fileName: string,
    analysis: FileAnalysis,
    uploader: string | undefined,
    claim: string,
  ): Promise<SignedFileRecord> {
    const { signer, storage, records, baseUrl, cdnUrl } = this.options;
    const fileKey = documentKey(analysis.hash, analysis.type.extension);
    const template = createFileEvent(analysis, `${cdnUrl}/${fileKey}`, fileName, undefined, uploader);
    const [event, pubkey] = await signWithBunker(async () =>
      Promise.all([signer.signEvents([template]).then((events) => events[0]), signer.getPublicKey()]),
    );
    // The one check core's signing run makes of every signer's answer: this template, this key, id, signature.
    const engine = await loadSigningEngine();
    const problem =
      event === undefined
        ? 'it returned no event'
        : checkSignedEvent(template, event, { pubkey, engine, verifySignature: true });
    if (problem !== undefined || event === undefined) {
      throw new SigningError(
        'bunker_mismatch',
        `The bunker returned an event that does not match what was asked: ${problem}`,
      );
    }
    const record = recordFor(analysis, event, fileName, Math.floor(Date.now() / 1000));
    const urls = fileUrls(record, baseUrl, cdnUrl);
    const text = analysis.type.kind === 'text' ? pageText(bytes) : undefined;
    const written: string[] = [];
    let recording = false;
    try {
      for (const [key, data] of [
        [fileKey, bytes],
        [
          eventPageKey(record.hash, 'index.html'),
          new TextEncoder().encode(await renderEventPage(record, urls, baseUrl, text)),
        ],
        [
          eventPageKey(record.hash, 'index.json'),
          new TextEncoder().encode(JSON.stringify(describeRecord(record, urls), null, 2)),
        ],
      ] as const) {
        written.push(key);
        await storage.put(key, data);
      }
      recording = true;
      await records.insert(record, { deliverTo: this.options.deliverTo ?? [], claim });
    } catch (error) {
      // The store went away while the record's transaction ran (its answer lost, or given up past the
      // bound): the record may have committed all the same. Its files stay, for the orphan sweep to look at
      // once the claim has ended — deleted then only if no record came of it.
      const unsettled = recording && error instanceof StoreUnavailableError;
      if (unsettled) this.onUnsettled?.(analysis.hash);
      // A lost claim's files are its new holder's; a duplicate's are the existing record's (same bytes).
      if (!(error instanceof ClaimLostError || error instanceof DuplicateRecordError || unsettled))
        await Promise.allSettled(written.map((key) => storage.delete(key)));
      if (error instanceof DuplicateRecordError) await this.rejectIfSigned(analysis.hash);
      throw error;
    }
    return record;
  }

  private async rejectIfSigned(hash: string): Promise<void> {
    const stored = await this.options.records.findByHash(hash);
    if (stored === undefined) return;
    const existing = bindRecord(stored); // what the signed event states, not the columns alone
    throw new SigningError('already_signed', `This file was already signed (event \`${existing.eventId}\`)`, {
      hash,
      existing_event: existing.event,
      urls: fileUrls(existing, this.options.baseUrl, this.options.cdnUrl),
    });
  }

  /**
   * Delete stored files and event pages that have no record (left by a crash between storing and
   * recording), and what the store left mid-write. Safe while uploads run, here or on other instances: a
   * hash's files are deleted only under a claim on the hash, taken after its record was found missing and
   * checked again once held — an upload in flight holds its hash's claim (renewed while it works), so its
   * files are never taken; a dead upload's claim ends with its lease, and such a hash is reported `held`
   * with when its claim ends, for a look again then (`OrphanSweeper`). Without `hashes`, every stored key is
   * looked at (a full sweep: at start and every `ORPHAN_SWEEP_MS`, by every instance, so whichever runs
   * next cleans up after any instance that died); with them, only those hashes' files.
   */
  async removeOrphans(hashes?: readonly string[]): Promise<OrphanSweep> {
    const { storage, records, claims } = this.options;
    const removed: string[] = hashes === undefined ? ((await storage.removeLeftovers?.()) ?? []) : [];
    const prefixes =
      hashes === undefined
        ? ['documents/', 'events/']
        : hashes.flatMap((hash) => [`documents/${hash}.`, `events/${hash}/`]);
    // Keys per hash that has no record, looked up a page of keys at a time (one query each page).
    const orphans = new Map<string, string[]>();
    let page: { key: string; hash: string }[] = [];
    const lookUp = async () => {
      const known = await records.findHashes([...new Set(page.map((entry) => entry.hash))]);
      for (const { key, hash } of page) {
        if (known.has(hash)) continue;
        const keys = orphans.get(hash);
        if (keys === undefined) orphans.set(hash, [key]);
        else keys.push(key);
      }
      page = [];
    };
    for (const prefix of prefixes) {
      for await (const key of storage.list(prefix)) {
        const hash = /^(?:documents|events)\/([0-9a-f]{64})/.exec(key)?.[1];
        if (hash === undefined || key.includes('.tmp-')) {
          // Never an upload's key: deleted as it is.
          await storage.delete(key);
          removed.push(key);
          continue;
        }
        page.push({ key, hash });
        if (page.length >= SWEEP_PAGE) await lookUp();
      }
    }
    if (page.length > 0) await lookUp();
    const held: OrphanSweep['held'] = [];
    for (const [hash, keys] of orphans) {
      const claim = await claims.claimHash(hash, this.leaseMs);
      if (claim === undefined) {
        // An upload holds it: in flight, or dead with its lease not ended yet. Ended meanwhile: at once.
        held.push({ hash, endsInMs: (await claims.claimEndsIn(hash)) ?? 0 });
        continue;
      }
      try {
        if ((await records.findByHash(hash)) !== undefined) continue; // signed since it was listed
        for (const key of keys) {
          await storage.delete(key);
          removed.push(key);
        }
      } finally {
        await claims.releaseClaim(hash, claim);
      }
    }
    return { removed, held };
  }
}

/** Analyze a file and check that it names a real author, without signing (for `POST /api/inspect`). */
export function requireAuthor(analysis: FileAnalysis, fileName: string): void {
  if (analysis.authors.length > 0) return;
  if (analysis.authorKeys !== undefined) {
    const { source, keys } = analysis.authorKeys;
    const field = source.slice(source.lastIndexOf(':') + 1);
    throw new SigningError(
      'author_required',
      `\`${fileName}\` names its author by the ${keys.length === 1 ? 'key' : 'keys'} ${keys.map((key) => `\`${key}\``).join(', ')} (\`${field}\`), not by name: ` +
        "Jekyll's `_data/authors.yml` and Docusaurus' `authors.yml` look such keys up, but only this file is signed. " +
        'Write the name in the file, e.g. `author: Ana Lima` (Docusaurus: `authors: [{ name: Ana Lima }]`)',
    );
  }
  const where =
    analysis.type.kind === 'image'
      ? 'the XMP `dc:creator` of the image (or its IPTC By-line, EXIF `Artist`, XMP `tiff:Artist`, EXIF `XPAuthor` or PNG `Author`)'
      : analysis.type.kind === 'document'
        ? 'the PDF `/Author` (or its XMP `dc:creator`)'
        : 'the frontmatter `author:` (YAML, TOML or JSON), a Pandoc title block (`% Title` then `% Author`) or an `Author:` line heading the file';
  throw new SigningError(
    'author_required',
    `\`${fileName}\` names no author (or only a placeholder such as \`unknown\`); set ${where}`,
  );
}

/**
 * The record the signer writes for an analyzed upload and its signed event: the file stored under
 * `documents/{hash}.{extension}`, the upload's name cut to 255 characters, written at `createdAt` (seconds).
 */
export function recordFor(
  analysis: FileAnalysis,
  event: NostrEvent,
  fileName: string,
  createdAt: number,
): SignedFileRecord {
  return {
    hash: analysis.hash,
    eventId: event.id,
    pubkey: event.pubkey,
    fileType: analysis.type.kind,
    mimeType: analysis.type.mimeType,
    sizeBytes: analysis.sizeBytes,
    width: analysis.dimensions?.width,
    height: analysis.dimensions?.height,
    authors: analysis.authors,
    title: analysis.title,
    description: analysis.description,
    fileName: fileName.slice(0, 255),
    fileKey: documentKey(analysis.hash, analysis.type.extension),
    event,
    createdAt,
  };
}
