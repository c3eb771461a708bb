/**
 * The reader's settings and trust, in `chrome.storage.local` (never synced, never sent anywhere):
 * `relays` (the reader's own relay list; default core's {@link DEFAULT_RELAYS}: a reader who sets nothing
 * still gets currency checked where those relays answer), `pins` (per origin, the expected signer: an npub,
 * hex key or NIP-05 name) and `known` (per origin, the keys the reader accepted and when: trust on first
 * use, like SSH's known hosts).
 */
import { DEFAULT_RELAYS } from '@siegel/core/browser';

/** A key accepted for an origin, and since when (ms). */
export interface KnownKey {
  pubkey: string;
  since: number;
}

/** Everything the extension stores. */
export interface Settings {
  relays: string[];
  /** Origin → the pinned signer (`npub1…`, 64 hex, or a NIP-05 name). */
  pins: Record<string, string>;
  /** Origin → the keys accepted there. */
  known: Record<string, KnownKey[]>;
}

/** The settings, with defaults for what the reader never set. */
export async function readSettings(): Promise<Settings> {
  const stored = await chrome.storage.local.get(['relays', 'pins', 'known']);
  const relays = Array.isArray(stored.relays) ? (stored.relays as string[]) : DEFAULT_RELAYS;
  return {
    relays,
    pins: (stored.pins as Settings['pins'] | undefined) ?? {},
    known: (stored.known as Settings['known'] | undefined) ?? {},
  };
}

let current: Promise<Settings> | undefined;
let watching = false;

/**
 * The settings as {@link readSettings} gives them, read once and again only after a change (by the options
 * page, the popup or a write here: `chrome.storage.onChanged`): a check does not wait on storage.
 */
export function currentSettings(): Promise<Settings> {
  if (!watching) {
    watching = true;
    chrome.storage.onChanged.addListener((_changes, area) => {
      if (area === 'local') current = undefined;
    });
  }
  current ??= readSettings();
  return current;
}

/**
 * The writes of this context, one after another: each reads, changes and writes a whole map, so two at once
 * (two tabs of new origins checked together, each accepting its first key) would lose one of them.
 */
let writes: Promise<unknown> = Promise.resolve();
function update(change: () => Promise<void>): Promise<void> {
  const next = writes.then(change);
  writes = next.catch(() => undefined);
  return next;
}

/** Accept `pubkey` for `origin` (the popup's "Accept", or the first key seen there). */
export function acceptKey(origin: string, pubkey: string): Promise<void> {
  return update(async () => {
    const { known } = await readSettings();
    const keys = known[origin] ?? [];
    if (!keys.some((key) => key.pubkey === pubkey)) keys.push({ pubkey, since: Date.now() });
    await chrome.storage.local.set({ known: { ...known, [origin]: keys } });
  });
}

/**
 * Trust on first use, decided and written in one step: accepts `pubkey` when `origin` has no key yet, and
 * returns the keys known there afterwards (two checks of a new origin at once cannot both be its first).
 */
export function acceptIfFirst(origin: string, pubkey: string): Promise<KnownKey[]> {
  let keys: KnownKey[] = [];
  return update(async () => {
    const { known } = await readSettings();
    keys = known[origin] ?? [];
    if (keys.length > 0) return;
    keys = [{ pubkey, since: Date.now() }];
    await chrome.storage.local.set({ known: { ...known, [origin]: keys } });
  }).then(() => keys);
}

/** Pin `signer` for `origin` (`undefined`: remove the pin). */
export function pinSigner(origin: string, signer: string | undefined): Promise<void> {
  return update(async () => {
    const { pins } = await readSettings();
    const next = { ...pins };
    if (signer === undefined) delete next[origin];
    else next[origin] = signer;
    await chrome.storage.local.set({ pins: next });
  });
}
