// The end of a signing run: the site manifest (docs/site-manifest.md). Once every page is written, the
// verify files no page names any more are removed, every file of the output is hashed, the manifest is laid
// out (manifest/) and signed — only when its tags differ from the one in `verify/manifest.json`, with a
// `created_at` strictly after it — written atomically beside the events and sent through the outbox. And,
// before any page is signed, the check that the site id is not another site's on the run's relays.
import { readdir, readFile, rm } from 'node:fs/promises';
import { basename, dirname, join, relative, sep } from 'node:path';
import type { EventTemplate, NostrEvent } from 'nostr-tools/core';
import { verifyEvent } from 'nostr-tools/pure';
import { SiegelError } from '../errors.js';
import { isStaleTempName, writeFileAtomic } from '../fs/atomic-write.js';
import { ChunkReader, hashWritten } from '../fs/file-io.js';
import { listTree } from '../fs/find-pages.js';
import { layOutManifest } from '../manifest/manifest-layout.js';
import {
  isManifestExcluded,
  isNameablePath,
  MANIFEST_FILE,
  newestManifest,
} from '../manifest/site-manifest.js';
import { isEventShape } from '../nostr/event-shape.js';
import { outboxFileOf } from '../nostr/publish-outbox.js';
import { queryRelay } from '../nostr/relay-query.js';
import { MARK_SCRIPT_NAME } from '../options/mark-options.js';
import { VERIFY_DIR } from '../verify/verify-output.js';
import type { SigningRun } from './signing-run.js';
import type { ManifestSummary } from './summary.js';

/** Time the collision check gives each relay. */
const COLLISION_TIMEOUT_MS = 5_000;

/**
 * Refuse to sign when the newest manifest for this run's (kind, key, d) on its relays belongs to another
 * site URL: its pages would replace that site's manifest. No relay answering is a warning, not a refusal.
 * Asked once per site id: when the cache keeps this site's own manifest for the same (kind, key, d), an
 * earlier run checked it and signed it, and later runs do not wait on the relays again (a silent relay
 * would add its 5 s to every build).
 * @throws {SiegelError} `invalid_options` naming `--site-id` (the integrations' `siteId`).
 */
export async function checkSiteIdFree(run: SigningRun): Promise<void> {
  const { options, pubkey } = run;
  if (options.dryRun || pubkey === undefined || options.relays.length === 0) return;
  const { kind, d } = options.manifest;
  const kept = run.cache.manifest;
  if (
    kept !== undefined &&
    isManifestOf(kept, pubkey, kind) &&
    tagOf(kept, 'd') === d &&
    tagOf(kept, 'url') === `${options.site}/`
  )
    return;
  const filter = { kinds: [kind], authors: [pubkey], ...(d === undefined ? {} : { '#d': [d] }), limit: 5 };
  const accept = (event: NostrEvent) => event.pubkey === pubkey && verifyEvent(structuredClone(event));
  const answers = await Promise.all(
    options.relays.map((relay) => queryRelay(relay, filter, { accept, timeoutMs: COLLISION_TIMEOUT_MS })),
  );
  if (answers.every((answer) => answer.error !== undefined)) {
    options.logger.warn(
      `No relay answered the check that the site id \`${d ?? '(root site)'}\` is this site's; signing goes on.`,
    );
    return;
  }
  const newest = newestManifest(
    answers.flatMap((answer) => answer.events).filter((event) => d === undefined || tagOf(event, 'd') === d),
  );
  const url = newest && tagOf(newest, 'url');
  if (url !== undefined && url !== `${options.site}/`)
    throw new SiegelError(
      'invalid_options',
      `The site id \`${d ?? '(root site)'}\` of this key already names the site ${url} on the relays; ` +
        'give this site its own with `--site-id` (the option `siteId` of the integrations, `SIEGEL_SITE_ID`).',
    );
}

/**
 * Sign (when it changed), write and publish the site manifest of a finished run; remove stale verify files
 * first (after a full run: not when the run named its `files`). `undefined` in a dry run or without a signer.
 */
export async function signSiteManifest(root: string, run: SigningRun): Promise<ManifestSummary | undefined> {
  const { options, signer, pubkey } = run;
  if (options.dryRun || !signer || pubkey === undefined) return undefined;
  const started = performance.now();
  const pages = new Map<string, { eventId: string; loads: string[] }>();
  const reported = new Map(run.reports.map((report) => [report.path, report]));
  const removed = options.files === undefined ? await removeStale(root, run) : 0;
  const paths = listFiles(root, options.cacheFile);
  const hashes = await hashFiles(root, paths, run.written);
  run.written.clear(); // in `hashes` now: one copy less while the manifest is laid out (30 000 pages: 60 000)
  const files = new Map<string, string>();
  for (const [index, path] of paths.entries()) {
    const name = `/${path}`;
    files.set(name, hashes[index] as string);
    const report = reported.get(path);
    // A page this run did not look at (it named its `files`) keeps its cached event.
    const event = report ? report.eventId : options.files ? run.cache.get(path)?.event.id : undefined;
    if (event !== undefined) pages.set(name, { eventId: event, loads: loadsOf(run, path) });
  }
  const { kind, d, title, description, servers } = options.manifest;
  const home = run.cache.get('index.html')?.event;
  const layout = layOutManifest({
    kind,
    d,
    siteUrl: `${options.site}/`,
    title: title ?? (home && tagOf(home, 'alt')),
    description,
    servers,
    files,
    pages,
  });
  const file = join(root, MANIFEST_FILE);
  const onDisk = await readPrevious(file, pubkey, kind);
  // A build that empties the output removes verify/manifest.json: the cache keeps the last one signed.
  const previous = newestManifest(
    [onDisk, run.cache.manifest].filter((event): event is NostrEvent => isManifestOf(event, pubkey, kind)),
  );
  const same = previous && JSON.stringify(previous.tags) === JSON.stringify(layout.tags);
  let event = previous as NostrEvent;
  if (!same) {
    const now = Math.floor(Date.now() / 1000);
    const template: EventTemplate = {
      kind,
      created_at: Math.max(now, previous ? previous.created_at + 1 : now),
      tags: layout.tags,
      content: '',
    };
    [event] = (await signer.signEvents([template])) as [NostrEvent];
    if (event?.pubkey !== pubkey || !verifyEvent(structuredClone(event)))
      throw new SiegelError('bunker_error', 'The signer returned a site manifest that does not verify.');
  }
  if (layout.blob) await writeFileAtomic(join(root, layout.blob.path), layout.blob.text);
  if (onDisk?.id !== event.id) await writeFileAtomic(file, `${JSON.stringify(event, null, 2)}\n`);
  if (run.cache.manifest?.id !== event.id) run.cache.setManifest(event);
  if (!same) await run.publish([event]);
  return {
    signed: !same,
    layout: layout.layout,
    files: files.size,
    eventBytes: Buffer.byteLength(JSON.stringify(event)),
    blobBytes: layout.blob?.bytes ?? 0,
    removed,
    ms: performance.now() - started,
    eventId: event.id,
  };
}

/**
 * What a signed page loads, as the manifest pins it: what the build's page loads (cached with its entry)
 * and, with the reader's mark on, the mark's script its block names (`/verify/siegel-mark.js` inside the
 * site, as page/page-loads.ts names a same-site file). That item is the run's own: a page signed before
 * carries it in its old block, which this run replaced, so it is listed exactly when the mark is on.
 */
function loadsOf(run: SigningRun, path: string): string[] {
  const item = `script /${VERIFY_DIR}/${MARK_SCRIPT_NAME}`;
  const loads = (run.cache.get(path)?.loads ?? []).filter((load) => load !== item);
  return run.options.mark === undefined ? loads : [...loads, item];
}

/** The manifest in `verify/manifest.json` when it is this key's of this kind and verifies; else `undefined`. */
async function readPrevious(file: string, pubkey: string, kind: number): Promise<NostrEvent | undefined> {
  try {
    const event: unknown = JSON.parse(await readFile(file, 'utf8'));
    if (isManifestOf(event, pubkey, kind)) return event;
  } catch {
    // None yet, or not readable: a new one is signed.
  }
  return undefined;
}

/** `event` is a manifest of this key and kind whose signature verifies. */
function isManifestOf(event: unknown, pubkey: string, kind: number): event is NostrEvent {
  return (
    isEventShape(event) &&
    event.pubkey === pubkey &&
    event.kind === kind &&
    verifyEvent(structuredClone(event) as NostrEvent)
  );
}

/**
 * Remove `verify/<id>.json` and `verify/<id>/` whose id is no event of a page of this run, and manifest
 * blobs other than the newest manifest's (its own file, rewritten by every run that needs it). Returns how
 * many per-event files and verify pages went.
 */
async function removeStale(root: string, run: SigningRun): Promise<number> {
  if (run.fatal) return 0;
  const current = new Set(run.reports.flatMap((report) => (report.eventId ? [report.eventId] : [])));
  const dir = join(root, 'verify');
  const names = await readdir(dir).catch(() => [] as string[]);
  let removed = 0;
  for (const name of names) {
    const id = /^([0-9a-f]{64})(?:\.json)?$/.exec(name)?.[1];
    const blob = /^manifest-[0-9a-f]{64}\.json$/.test(name);
    if ((id === undefined || current.has(id)) && !blob) continue;
    await rm(join(dir, name), { recursive: true, force: true });
    if (id !== undefined) removed++;
  }
  return removed;
}

/**
 * Every file of the output the manifest lists, as POSIX paths relative to `root`: regular files, except the
 * per-event and manifest files (isManifestExcluded), the cache, its journal and the outbox when they lie in
 * the output, temp files of an interrupted write, and paths NIP-5A cannot name (no extension).
 */
function listFiles(root: string, cacheFile: string): string[] {
  const own = [cacheFile, outboxFileOf(cacheFile)].map((file) => ({
    dir: dirname(file),
    name: basename(file),
  }));
  const entries = listTree(root);
  const paths: string[] = [];
  for (const entry of entries) {
    if (!entry.isFile() || isStaleTempName(entry.name)) continue;
    if (own.some(({ dir, name }) => entry.parentPath === dir && entry.name.startsWith(name))) continue;
    const path = relative(root, join(entry.parentPath, entry.name)).split(sep).join('/');
    if (!isManifestExcluded(path) && isNameablePath(`/${path}`)) paths.push(path);
  }
  return paths;
}

/** Files read per turn of the event loop while hashing (the page reader's chunk: see ChunkReader). */
const HASH_CHUNK = 64;

/**
 * SHA-256 (hex) of each file, in the order of `paths`: a file this run wrote has the hash of what it wrote
 * (`written`, by absolute path, hashed on the I/O thread as it wrote it); every other file (assets, pages
 * left as they were) is read by the page reader (`ChunkReader`: plain system calls into one reused buffer).
 * Through `fs/promises` each file cost four round trips through libuv's thread pool: 10 000 pages with their
 * verify pages and assets (21 000 files) took 5.6 s of a 9.7 s warm run; reading back the 20 000 files the
 * run had just written, about 1 s.
 * @throws the read error of a file that cannot be read (the run reports it).
 */
async function hashFiles(root: string, paths: string[], written: Map<string, string>): Promise<string[]> {
  const reader = new ChunkReader();
  const hashes = paths.map((path) => written.get(join(root, path)));
  const unread = [...hashes.keys()].filter((index) => hashes[index] === undefined);
  for (let start = 0; start < unread.length; start += HASH_CHUNK) {
    const chunk = unread.slice(start, start + HASH_CHUNK);
    const files = chunk.map((index) => join(root, paths[index] as string));
    for (const [offset, bytes] of reader.read(files).entries()) {
      if (bytes instanceof Error) throw bytes;
      hashes[chunk[offset] as number] = hashWritten(bytes);
    }
    await new Promise(setImmediate);
  }
  return hashes as string[];
}

function tagOf(event: { tags: string[][] }, name: string): string | undefined {
  return event.tags.find((tag) => tag[0] === name)?.[1];
}
