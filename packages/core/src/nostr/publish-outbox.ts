import { type FileHandle, mkdir, open, readFile, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { NostrEvent } from 'nostr-tools/core';
import { z } from 'zod';
import { moveAside, writeFileAtomic } from '../fs/atomic-write.js';
import { backoffDelay } from '../net/backoff.js';
import { isEventShape } from './event-shape.js';

/** Layout version of the outbox file. */
export const OUTBOX_VERSION = 1;

/** First wait before an event is sent again to a relay that did not take it, in milliseconds (1 min). */
export const RETRY_BASE_MS = 60_000;
/** Longest wait between two attempts, in milliseconds (6 h). */
export const RETRY_MAX_MS = 6 * 60 * 60_000;

const eventSchema = z.custom<NostrEvent>(isEventShape, 'not a signed Nostr event');

/**
 * One event that some relays have not taken yet, as the outbox file holds it: the event, the relays that
 * still need it, those that took it, the failed attempts, when the next one is due (ms since the epoch;
 * `signSite` sends only due entries, `siegel publish` all) and why the last attempt failed, per relay.
 */
export const outboxEntrySchema = z.object({
  event: eventSchema,
  relays: z.array(z.string()),
  delivered: z.array(z.string()).optional(),
  attempts: z.int().min(0),
  nextTry: z.number().refine(Number.isFinite),
  lastError: z.record(z.string(), z.string()).optional(),
});

/** One event that some relays have not taken yet (see {@link outboxEntrySchema}). */
export type OutboxEntry = z.infer<typeof outboxEntrySchema>;

/** The outbox file: `{ "version": 1, "events": [OutboxEntry…] }`, sorted by event id. */
export const outboxFileSchema = z.object({
  version: z.literal(OUTBOX_VERSION),
  events: z.array(outboxEntrySchema),
});

/**
 * One line of the outbox's journal (`{outbox}.journal`, JSON lines): an event and the relays it is about to
 * be sent to. Written before the event goes out, so that a run killed while publishing (kill -9, Ctrl-C,
 * SIGTERM) leaves every event it sent in the journal; the next run folds the journal into the outbox.
 */
export const outboxJournalLineSchema = z.object({
  event: eventSchema,
  relays: z.array(z.string()).min(1),
});

/** The outbox in memory, by event id. */
export type Outbox = Map<string, OutboxEntry>;

/**
 * The outbox beside a cache file: `.sign-outbox.json` beside `.sign-cache.json`, else `{name}.outbox.json`
 * beside `{name}.json`.
 */
export function outboxFileOf(cacheFile: string): string {
  const name = basename(cacheFile);
  const outbox =
    name === '.sign-cache.json' ? '.sign-outbox.json' : `${name.replace(/\.json$/i, '')}.outbox.json`;
  return join(dirname(cacheFile), outbox);
}

/** The outbox's journal: `{outbox}.journal`. */
export function outboxJournalOf(outboxFile: string): string {
  return `${outboxFile}.journal`;
}

/**
 * The wait before attempt `attempts + 1`: `base` (1 min), doubled per failed attempt, at most `max` (6 h).
 * The file server's relay outbox uses it with its own bounds.
 */
export function retryDelayMs(attempts: number, base = RETRY_BASE_MS, max = RETRY_MAX_MS): number {
  return backoffDelay(attempts - 1, { first: base, max });
}

/** Result of {@link readOutbox}. */
export interface ReadOutboxResult {
  outbox: Outbox;
  /** The file was not a readable outbox: it was moved aside (named here) and an empty outbox is used. */
  warning?: string;
  /** Events an interrupted run had sent (its journal), folded in: the outbox must be written again. */
  folded?: number;
}

/**
 * Read the outbox and fold in its journal (events an interrupted run had sent; each is due now, for the
 * relays it was sent to); a missing file is an empty outbox. One that cannot be read as an outbox is never
 * overwritten: it is copied to `{file}.corrupt-{ms}` (its events are kept there) and a `warning` says so.
 *
 * @throws the file system's error for anything but a missing file.
 */
export async function readOutbox(file: string): Promise<ReadOutboxResult> {
  const outbox: Outbox = new Map();
  const result: ReadOutboxResult = { outbox };
  const text = await readIfThere(file);
  if (text !== undefined) {
    let parsed: z.infer<typeof outboxFileSchema> | undefined;
    try {
      parsed = outboxFileSchema.parse(JSON.parse(text));
    } catch {
      const aside = await moveAside(file);
      result.warning = `Siegel: the outbox \`${file}\` is not readable; moved to \`${aside}\` (its events are kept there)`;
    }
    for (const entry of parsed?.events ?? []) outbox.set(entry.event.id, entry);
  }
  const folded = foldJournal(outbox, await readIfThere(outboxJournalOf(file)));
  if (folded > 0) result.folded = folded;
  return result;
}

async function readIfThere(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * Add the journal's events to `outbox`: an event not in it waits for every relay it was sent to; one in
 * it also for those relays. Either is due at once (nothing says the relays took it). A torn last line (a
 * run killed mid-append) and malformed lines are skipped. Returns how many lines were folded in.
 */
function foldJournal(outbox: Outbox, text: string | undefined): number {
  let folded = 0;
  for (const line of text?.split('\n') ?? []) {
    if (!line) continue;
    let parsed: z.infer<typeof outboxJournalLineSchema>;
    try {
      parsed = outboxJournalLineSchema.parse(JSON.parse(line));
    } catch {
      continue;
    }
    const { event, relays } = parsed;
    const entry = outbox.get(event.id);
    const delivered = entry?.delivered ?? [];
    const needed = relays.filter((relay) => !delivered.includes(relay));
    outbox.set(event.id, {
      event,
      relays: [...new Set([...(entry?.relays ?? []), ...needed])],
      ...(delivered.length > 0 ? { delivered } : {}),
      attempts: entry?.attempts ?? 0,
      nextTry: 0,
      ...(entry?.lastError ? { lastError: entry.lastError } : {}),
    });
    folded++;
  }
  return folded;
}

/**
 * Write the outbox atomically (an empty outbox removes the file), then remove its journal: everything
 * the journal held is in the file now.
 */
export async function writeOutbox(file: string, outbox: Outbox): Promise<void> {
  if (outbox.size === 0) {
    await rm(file, { force: true });
  } else {
    const events = [...outbox.values()].sort((a, b) => (a.event.id < b.event.id ? -1 : 1));
    await writeFileAtomic(file, `${JSON.stringify({ version: OUTBOX_VERSION, events }, null, 1)}\n`);
  }
  await rm(outboxJournalOf(file), { force: true });
}

/**
 * The outbox's journal, open for appending: {@link append} writes each event with its relays as one JSON
 * line before the event is sent. Appends are serialised; the file starts with the first append (a run
 * that publishes nothing writes none), and {@link writeOutbox} removes it.
 */
export class OutboxJournal {
  readonly file: string;
  #handle: Promise<FileHandle> | undefined;
  #tail: Promise<void> = Promise.resolve();

  constructor(outboxFile: string) {
    this.file = outboxJournalOf(outboxFile);
  }

  /** Append `events`, each to be sent to `relays`; resolves once the lines are written (not fsynced). */
  append(events: readonly NostrEvent[], relays: readonly string[]): Promise<void> {
    if (events.length === 0) return this.#tail;
    const text = `${events.map((event) => JSON.stringify({ event, relays })).join('\n')}\n`;
    this.#tail = this.#tail.then(async () => {
      this.#handle ??= mkdir(dirname(this.file), { recursive: true }).then(() => open(this.file, 'a'));
      await (await this.#handle).write(text);
    });
    return this.#tail;
  }

  /** Wait for the appends and close the file (it stays until {@link writeOutbox} removes it). */
  async close(): Promise<void> {
    await this.#tail.catch(() => undefined);
    const handle = this.#handle;
    this.#handle = undefined;
    await (await handle?.catch(() => undefined))?.close();
  }
}
