import { readFile, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { NostrEvent } from 'nostr-tools/core';
import { moveAside, writeFileAtomic } from '../fs/atomic-write.js';
import { isEventShape } from './event-shape.js';

/** Layout version of the outbox file. */
export const OUTBOX_VERSION = 1;

/** First wait before an event is sent again to a relay that did not take it, in milliseconds (1 min). */
export const RETRY_BASE_MS = 60_000;
/** Longest wait between two attempts, in milliseconds (6 h). */
export const RETRY_MAX_MS = 6 * 60 * 60_000;

/** One event that some relays have not taken yet. */
export interface OutboxEntry {
  event: NostrEvent;
  /** Relays that still need it. */
  relays: string[];
  /** Relays that took it already. */
  delivered?: string[];
  /** Failed attempts so far. */
  attempts: number;
  /** When the next attempt is due (ms since the epoch); `signSite` waits for it, `siegel publish` does not. */
  nextTry: number;
  /** Why the last attempt failed, per relay. */
  lastError?: Record<string, string>;
}

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

/**
 * The wait before attempt `attempts + 1`: `base` (1 min), doubled per failed attempt, at most `max` (6 h).
 * The file server's relay outbox uses it with its own bounds.
 */
export function retryDelayMs(attempts: number, base = RETRY_BASE_MS, max = RETRY_MAX_MS): number {
  return Math.min(max, base * 2 ** Math.max(0, attempts - 1));
}

const isEntry = (value: unknown): value is OutboxEntry => {
  const entry = value as OutboxEntry;
  return (
    typeof entry === 'object' &&
    entry !== null &&
    isEventShape(entry.event) &&
    Array.isArray(entry.relays) &&
    entry.relays.every((relay) => typeof relay === 'string') &&
    Number.isInteger(entry.attempts) &&
    Number.isFinite(entry.nextTry)
  );
};

/** Result of {@link readOutbox}. */
export interface ReadOutboxResult {
  outbox: Outbox;
  /** The file was not a readable outbox: it was moved aside (named here) and an empty outbox is used. */
  warning?: string;
}

/**
 * Read the outbox; a missing file is an empty outbox. One that cannot be read as an outbox is never
 * overwritten: it is copied to `{file}.corrupt-{ms}` (its events are kept there) and a `warning` says so.
 *
 * @throws the file system's error for anything but a missing file.
 */
export async function readOutbox(file: string): Promise<ReadOutboxResult> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { outbox: new Map() };
    throw error;
  }
  const outbox: Outbox = new Map();
  try {
    const data = JSON.parse(text) as { version?: unknown; events?: unknown };
    if (data?.version !== OUTBOX_VERSION || !Array.isArray(data.events) || !data.events.every(isEntry))
      throw new Error('not an outbox');
    for (const entry of data.events as OutboxEntry[]) outbox.set(entry.event.id, entry);
    return { outbox };
  } catch {
    const aside = await moveAside(file);
    return {
      outbox,
      warning: `Siegel: the outbox \`${file}\` is not readable; moved to \`${aside}\` (its events are kept there)`,
    };
  }
}

/** Write the outbox atomically; an empty outbox removes the file. */
export async function writeOutbox(file: string, outbox: Outbox): Promise<void> {
  if (outbox.size === 0) {
    await rm(file, { force: true });
    return;
  }
  const events = [...outbox.values()].sort((a, b) => (a.event.id < b.event.id ? -1 : 1));
  await writeFileAtomic(file, `${JSON.stringify({ version: OUTBOX_VERSION, events }, null, 1)}\n`);
}
